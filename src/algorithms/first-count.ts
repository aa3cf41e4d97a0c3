import type { RateMeter } from './rate-meter.js';

/**
 * A grant since a pause this share of the first count or more shows the pause
 * reset the limit: below it, the server went on refusing what was left of a
 * window the pause did not span (a window granted in a few ms before the refusal).
 */
const GRANT_SHARE = 0.5;

/**
 * A grant since the pause as little as this share under the ceiling read at the
 * refusal that refuted the trial still reads the window: that reading is what a
 * few ms of timing noise moves (sends arriving bunched, answers reported late).
 * On a 1 s window of 30 it read 26.5 req/s with no noise and 30.3-32.4 under
 * 0-10 and 0-30 ms each way, where the grant read the window's 30 each time. A
 * pause longer than the window reads the grant far lower (a 2 s pause on a 1 s
 * window: half).
 */
const NOISE_SHARE = 0.1;

/** The sends a first count's grant bound is read from (see {@link boundedByGrant}). */
export interface GrantWindow {
  readonly from: number;
  readonly to: number;
  readonly spanMs: number;
}

/**
 * The first count `counted` (requests/s, a raise of `ceiling`) bounded by what
 * the server granted in `window` — the sends since a cap trial's pause up to
 * the refusal that refuted the trial, per that pause. The first count is a
 * second of an unpaced slow start; on a fixed window that second straddles
 * the window's edge and counts the tail of one window's grant with the whole
 * of the next, and its hold is refused at once. The grant since the pause
 * read one window. It bounds the count only when it reads above `ceiling`, or
 * less than {@link NOISE_SHARE} under it (further below, the pause was longer
 * than the window: a grant per pause is a bound, not a reading), and at least
 * {@link GRANT_SHARE} of the count.
 */
export function boundedByGrant(
  counted: number,
  window: GrantWindow,
  meter: RateMeter,
  ceiling: number,
): number {
  const sent = meter.acceptedSentIn(window.from, window.to);
  if (sent === undefined || sent.fromMs > window.from) return counted;
  const granted = (sent.count * 1000) / window.spanMs;
  if (!(granted > ceiling * (1 - NOISE_SHARE)) || granted < counted * GRANT_SHARE) return counted;
  return Math.min(counted, granted);
}
