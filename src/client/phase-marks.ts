import type { Clock } from '../clock.js';
import type { PhaseTimings } from '../timings.js';
import type { ConnectionMarks } from './connection-timings.js';

/**
 * The moments of one exchange, all read from one clock, and the per-phase
 * timings they make. The timings are consistent by construction:
 * `dnsMs + connectMs + tlsMs <= ttfbMs <= totalMs`, every one >= 0, and they
 * stop changing once the exchange is over, however it ended. The handshake
 * phases count only the part of them that fell within this request: a
 * connection opened for another request, or before this one was sent, is
 * clipped to the time this one waited for its first byte.
 */
export class PhaseMarks {
  /** Body bytes received. */
  bytes = 0;
  readonly #clock: Clock;
  readonly #startedAt: number;
  #connection: ConnectionMarks | undefined;
  #firstByteAt: number | undefined;
  #endedAt: number | undefined;

  /** Starts the exchange's time now. */
  constructor(clock: Clock) {
    this.#clock = clock;
    this.#startedAt = clock.now();
  }

  /** Whether the response head has arrived. */
  get headArrived(): boolean {
    return this.#firstByteAt !== undefined;
  }

  /**
   * The connection the request was sent on was set up at these moments.
   * Marks read on another clock are moved onto this one by the two clocks'
   * difference now (the connector's default clock is the system clock).
   */
  connected(marks: ConnectionMarks | undefined): void {
    if (marks === undefined || this.#connection !== undefined) return;
    if (marks.clock === this.#clock) {
      this.#connection = marks;
      return;
    }
    const shift = this.#clock.now() - marks.clock.now();
    this.#connection = {
      start: marks.start + shift,
      lookup: marks.lookup + shift,
      connect: marks.connect + shift,
      end: marks.end + shift,
      clock: this.#clock,
    };
  }

  /** The response head arrived. */
  firstByte(): void {
    this.#firstByteAt ??= this.#clock.now();
  }

  /** The exchange is over: the last body byte arrived, or it failed. */
  ended(): void {
    this.#endedAt ??= this.#clock.now();
  }

  /** Timings so far (the current one for a mark not made yet); final once ended. */
  timings(): PhaseTimings {
    const end = this.#endedAt ?? this.#clock.now();
    const firstByte = Math.min(this.#firstByteAt ?? end, end);
    const within = (from: number, to: number) =>
      Math.max(0, Math.min(to, firstByte) - Math.max(from, this.#startedAt));
    const marks = this.#connection;
    return {
      dnsMs: marks ? within(marks.start, marks.lookup) : 0,
      connectMs: marks ? within(marks.lookup, marks.connect) : 0,
      tlsMs: marks ? within(marks.connect, marks.end) : 0,
      ttfbMs: Math.max(0, firstByte - this.#startedAt),
      totalMs: Math.max(0, end - this.#startedAt),
      bytes: this.bytes,
    };
  }
}
