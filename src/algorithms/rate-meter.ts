import { NEVER } from './congestion.js';
import type { Sample } from './sample.js';
import { WindowedRate } from './windowed-rate.js';

/** Buckets of each measuring window. */
const BUCKETS = 10;
/** A paced rate counts as used when the server accepted at least this share of it. */
const USED = 0.9;
/** Throttled again soon after a pause: at most this cut of the rate that failed. */
const DEEPEST_CUT = 0.5;
/** Weight of each accepted round trip in the round-trip-time average. */
const RTT_SMOOTHING = 0.2;

/** Serialisable state of a {@link RateMeter}; numbers only. */
export type RateMeterState = {
  /** `sentAt` of the first sample ({@link NEVER} before it). */
  startedAt: number;
  /** `at` of the latest sample. */
  lastAt: number;
  /** Average round-trip time of accepted requests, ms (0 before the first). */
  rttMs: number;
  /** Latest time the rate was unpaced. */
  unpacedAt: number;
  /** Start of the latest server-requested pause. */
  pauseFrom: number;
  /** End of the latest server-requested pause, 0 when none. */
  pauseTo: number;
  /** Requests the pacer offered since the latest pause ended. */
  offeredSincePause: number;
  /** Accepted outcomes per bucket of the measuring window. */
  acceptedCounts: number[];
  /** Number of the newest accepted bucket. */
  acceptedHead: number;
  /** Requests offered by the pacer per bucket of the measuring window. */
  offeredCounts: number[];
  /** Number of the newest offered bucket. */
  offeredHead: number;
};

/**
 * What a scope's traffic looked like recently, for {@link AdaptiveRate}: the
 * rate the server accepted (outcomes that were not throttling, by arrival), the
 * rate the pacer offered (its rate integrated over time — exact, where
 * arrivals lag a round trip and jitter), the round-trip time, and the server's
 * latest pause. Constant memory: two 10-bucket windows and a few numbers.
 */
export class RateMeter {
  readonly #windowMs: number;
  readonly #accepted: WindowedRate;
  readonly #offered: WindowedRate;
  #startedAt = NEVER;
  #lastAt = NEVER;
  #rttMs = 0;
  #unpacedAt = NEVER;
  #pauseFrom = NEVER;
  #pauseTo = 0;
  #offeredSincePause = 0;

  /** @param windowMs how far back rates are measured. */
  constructor(windowMs: number) {
    this.#windowMs = windowMs;
    this.#accepted = new WindowedRate(windowMs, BUCKETS);
    this.#offered = new WindowedRate(windowMs, BUCKETS);
  }

  /** Monotonic ms before which the server asked for silence; 0 when none is pending. */
  get pausedUntil(): number {
    return this.#pauseTo > this.#lastAt ? this.#pauseTo : 0;
  }

  /**
   * Moves time on to the sample's `at`, crediting the pacer with `rate`
   * (requests/s, `Infinity` when unpaced) since the previous sample. Returns the
   * milliseconds that passed outside the server's pause.
   */
  advance(sample: Sample, rate: number): number {
    const { at } = sample;
    if (this.#startedAt === NEVER) this.#startedAt = Math.min(sample.sentAt, at);
    const from = this.#lastAt === NEVER ? at : Math.min(at, this.#lastAt);
    this.#lastAt = Math.max(this.#lastAt, at);
    if (rate === Infinity) this.#unpacedAt = at;
    else {
      this.#offered.spread(from, at, rate);
      this.#offeredSincePause += (Math.max(0, at - Math.max(from, this.#pauseTo)) * rate) / 1000;
    }
    const paused = Math.max(0, Math.min(at, this.#pauseTo) - Math.max(from, this.#pauseFrom));
    return at - from - paused;
  }

  /** Records an outcome the server did not throttle. */
  accept(sample: Sample): void {
    this.#accepted.record(sample.at);
    const rtt = sample.at - sample.sentAt;
    if (!(rtt >= 0)) return;
    this.#rttMs = this.#rttMs === 0 ? rtt : this.#rttMs + (rtt - this.#rttMs) * RTT_SMOOTHING;
  }

  /** Records a server-requested pause of `ms` from `at` (overlapping pauses merge). */
  pause(at: number, ms: number): void {
    if (at >= this.#pauseTo) {
      this.#pauseFrom = at;
      this.#offeredSincePause = 0;
    }
    this.#pauseTo = Math.max(this.#pauseTo, at + ms);
  }

  /**
   * Accepted outcomes per second over the window; undefined before a tenth of
   * it has passed. Outcomes arrive one round trip after their requests, so the
   * first round trip is left out.
   */
  accepted(at: number): number | undefined {
    const span = at - this.#measureFrom(at);
    if (!(span >= this.#windowMs / BUCKETS)) return undefined;
    return (this.#accepted.count(at) * 1000) / span;
  }

  /**
   * What was really sent over the window: the pacer's average rate if it paced
   * throughout and the server accepted at least 90 % of it (so the pace, not
   * the concurrency limit or the demand, was what limited sending); otherwise
   * `accepted`.
   */
  sent(at: number, accepted: number): number {
    const from = this.#offered.windowStart(at);
    if (this.#unpacedAt >= from) return accepted;
    const offered = (this.#offered.count(at) * 1000) / (at - from);
    return accepted >= USED * offered ? offered : accepted;
  }

  /** Whether the window at `at` saw no server pause (its measurement is undisturbed). */
  calm(at: number): boolean {
    return this.#pauseTo === 0 || this.#pauseTo + this.#rttMs <= this.#measureFrom(at);
  }

  /**
   * The ceiling a throttling event at `at` reveals, given the `current` learned
   * rate (`Infinity` when unpaced), and whether it was measured calmly:
   * unpaced, what was accepted; after a calm spell, what was {@link sent};
   * soon after a pause, what was {@link grantedAfterPause}, cutting the
   * failed rate by at most half. Undefined when nothing is known yet.
   */
  ceilingAt(at: number, current: number): { ceiling: number; calm: boolean } | undefined {
    const accepted = this.accepted(at);
    const calm = accepted !== undefined && this.calm(at);
    let ceiling: number;
    if (accepted === undefined) ceiling = current;
    else if (current === Infinity) ceiling = accepted;
    else if (calm) ceiling = Math.min(this.sent(at, accepted), current);
    else ceiling = Math.min(current, Math.max(this.grantedAfterPause(at), current * DEEPEST_CUT));
    return ceiling === Infinity ? undefined : { ceiling, calm };
  }

  /**
   * Throttled again soon after a pause: the server made us wait P ms, then took
   * the N requests the pacer offered in the `a` ms before it refused again, so
   * it grants about N per max(a, P) — exact for windows and logs as long as the
   * pause, an upper bound otherwise.
   */
  grantedAfterPause(at: number): number {
    const pause = this.#pauseTo - this.#pauseFrom;
    const since = at - this.#pauseTo;
    return (this.#offeredSincePause * 1000) / Math.max(pause, since, 1);
  }

  /** Plain state. */
  toJSON(): RateMeterState {
    const accepted = this.#accepted.toJSON();
    const offered = this.#offered.toJSON();
    return {
      startedAt: this.#startedAt,
      lastAt: this.#lastAt,
      rttMs: this.#rttMs,
      unpacedAt: this.#unpacedAt,
      pauseFrom: this.#pauseFrom,
      pauseTo: this.#pauseTo,
      offeredSincePause: this.#offeredSincePause,
      acceptedCounts: accepted.counts,
      acceptedHead: accepted.head,
      offeredCounts: offered.counts,
      offeredHead: offered.head,
    };
  }

  /** Restores state from {@link RateMeter.toJSON}, already validated. */
  restore(state: RateMeterState): void {
    this.#startedAt = state.startedAt;
    this.#lastAt = state.lastAt;
    this.#rttMs = state.rttMs;
    this.#unpacedAt = state.unpacedAt;
    this.#pauseFrom = state.pauseFrom;
    this.#pauseTo = state.pauseTo;
    this.#offeredSincePause = state.offeredSincePause;
    this.#accepted.restore({ counts: state.acceptedCounts, head: state.acceptedHead });
    this.#offered.restore({ counts: state.offeredCounts, head: state.offeredHead });
  }

  /** Start of the measuring window: outcomes arrive one round trip after the first request. */
  #measureFrom(at: number): number {
    return Math.max(this.#accepted.windowStart(at), this.#startedAt + this.#rttMs);
  }
}
