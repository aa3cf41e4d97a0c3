import type { Sample } from './sample.js';

/**
 * The sends after a free probe's refusal that are its aftermath: a window the
 * probe spent refuses the first of them, a burst-1 bucket not yet refilled
 * one of the first two; a refusal of a later send is the rate held.
 */
const AFTERMATH_SENDS = 3;

/**
 * Whether a refusal names no pause — `Retry-After: 0`, or none on a 429 — the
 * issue's cheap refusal, after which a probe's refusal may go unpaused. A bare
 * 5xx is not one: taken for a refusal only because a probe was running (see
 * `OverloadFilter`), it may be an overload or an origin's noise, and a probe
 * refused by one pauses as before (unpaused, probes came every few seconds
 * into a limit answering bare 503s, each reading a refilled burst as rate).
 */
export function namesNoPause(sample: Sample): boolean {
  const { retryAfterMs, status } = sample.signal;
  return (
    retryAfterMs === 0 || (retryAfterMs === undefined && !(status !== undefined && status >= 500))
  );
}

/**
 * The aftermath of a probe refused without a pause. A refusal that names
 * none (see {@link namesNoPause}) ends a probe with its cut alone: a limit
 * that refills as it goes (a bucket, GCRA, a log) accepts the next sends at
 * the lower rate, and a pause would only cost sending time. Two limits may
 * not: a window whose grant the probe spent refuses every send to its end,
 * and a bucket of burst 1 refuses a send that comes before it refilled — or
 * the next but one. (Until its recount is in, the probe holds the rate held
 * before it, see `cutOnRefusal`: a guess above the capacity, a probe step
 * below the rate refused, was refused a window later, after the recount.)
 * So a refusal of one of the {@link AFTERMATH_SENDS} sends after the
 * probe's refusal (at the rate held, within one meter window), before the
 * probe's recount replaced the guess, is the probe's doing: part of its
 * congestion event, not a refusal of the rate held (no cut), and it brings
 * the pause the probe's refusal would have brought, billed to the probe.
 * Where none comes, the probe cost no pause. The first such refusal, the
 * recount or any pause ends the aftermath. Not saved: it lasts a few sends.
 */
export class FreeProbeAftermath {
  /** The sends in (`from`, `to`] are the probe's aftermath, ms; empty when none is open. */
  #from = Infinity;
  #to = -Infinity;

  /**
   * A probe was refused at `at` and brought no pause: the next
   * {@link AFTERMATH_SENDS} sends at the held `rate` (requests/s), within
   * `windowMs`, are its aftermath.
   */
  open(at: number, windowMs: number, rate: number): void {
    this.#from = at;
    this.#to = at + Math.min(windowMs, (1000 * AFTERMATH_SENDS) / rate);
  }

  /** Ends the aftermath (the recount came in, or a pause was taken). */
  close(): void {
    this.#from = Infinity;
    this.#to = -Infinity;
  }

  /**
   * Whether the refusal `sample` (not a closed server's, no probe's) is the
   * aftermath: its send came after the probe's refusal, within the span. The
   * first one ends it.
   */
  claims(sample: Sample): boolean {
    const claimed = sample.sentAt > this.#from && sample.sentAt <= this.#to;
    if (claimed) this.close();
    return claimed;
  }
}
