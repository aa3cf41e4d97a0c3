import { RecentMax } from '../algorithms/recent-max.js';

/** How many recent successes the highest accepted concurrency is taken over. */
const RECENT_ACCEPTED = 32;

/**
 * The most in flight recent successes were sent at, for "a refusal sent at
 * more in flight than any recent success". After a server's pause the
 * pipeline refills from empty over one round trip, and the successes sent in
 * that refill went out at fewer in flight than the scope holds: they do not
 * lower the count (at 400 req/s the last 32 successes span 80 ms, all of
 * them from the refill a few hundred ms after the pause). What was accepted
 * before the pause stands until successes sent after the refill answer. A
 * success was sent in the refill when it left less than its own round trip
 * after the pause ended.
 */
export class AcceptedInflight {
  readonly #recent = new RecentMax(RECENT_ACCEPTED);
  /** When the latest pause the scope was asked for ends; -Infinity before any. */
  #resumeAt = Number.NEGATIVE_INFINITY;

  /** The most in flight held; undefined before the first success. */
  get max(): number | undefined {
    return this.#recent.max;
  }

  /** Notes a pause asked for, ending at `until` (monotonic ms; 0 when none). */
  notePause(until: number): void {
    if (until > this.#resumeAt) this.#resumeAt = until;
  }

  /** A success sent at `sentAt` with `inflight` in flight, answered at `at`. */
  onAccepted(sentAt: number, inflight: number, at: number): void {
    const refilling = sentAt >= this.#resumeAt && sentAt - this.#resumeAt < at - sentAt;
    if (refilling && inflight < (this.#recent.max ?? 0)) return;
    this.#recent.add(inflight);
  }
}
