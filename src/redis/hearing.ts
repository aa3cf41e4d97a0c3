import type { Clock } from '../clock.js';
import type { QueueParts } from './queue-parts.js';

/**
 * Whether a scope's admission hears the scope's announcements yet, and what
 * it does while it does not. A scope's first acquire in a worker goes out
 * with its channel subscription still on the way — not after it, one round
 * trip later — so a first admission sent at once pays one round trip. What a
 * reply asks of a worker that was not listening when it asked waits for the
 * subscription (one call timeout at most): rather than sleep until a message
 * wakes it, the worker asks again; sends it booked ahead go only if the
 * scope's numbers, read again, show no pause or new rate announced meanwhile
 * (else they are given back and asked for again). Nothing announced before
 * it listened is missed.
 */
export class Hearing {
  readonly #parts: QueueParts;
  readonly #clock: Clock;
  readonly #timeoutMs: number;

  constructor(parts: QueueParts, clock: Clock, timeoutMs: number) {
    this.#parts = parts;
    this.#clock = clock;
    this.#timeoutMs = timeoutMs;
  }

  /** Whether the scope's messages are heard now. */
  get heard(): boolean {
    return this.#parts.heard();
  }

  /** Waits until the messages are heard, one call timeout at most; whether they are. */
  async listen(): Promise<boolean> {
    if (this.heard) return true;
    const timeout = this.#clock.sleep(this.#timeoutMs);
    await Promise.race([this.#parts.subscribe(), timeout]);
    return this.heard;
  }

  /** Takes the fleet's numbers from an acquire reply (the scope is told if its window or rate changed). */
  read(reply: readonly unknown[]): void {
    const { view } = this.#parts;
    const [window, rate] = [view.window, view.rate];
    view.readNumbers(reply);
    if (view.window !== window || view.rate !== rate) this.#parts.changed();
  }

  /**
   * Reads the scope's numbers again (an acquire taking nothing); whether a
   * pause or a new rate came meanwhile (sends booked before it would not
   * follow it), or the call failed.
   */
  async moved(): Promise<boolean> {
    const { view, calls } = this.#parts;
    const [pauseUntil, rate] = [view.pauseUntil, view.rate];
    const ask = { count: 0, first: 0, more: false, knownVersion: view.version, held: 0, ends: [] };
    const reply = await calls.acquire(ask, () => undefined).catch(() => undefined);
    if (reply === undefined) return true;
    this.read(reply);
    return view.pauseUntil > pauseUntil || view.rate !== rate;
  }
}
