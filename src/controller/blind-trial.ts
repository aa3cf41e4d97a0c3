import type { Sample } from '../algorithms/sample.js';

/**
 * A refusal before any success opens a cap on trial only when it was sent at
 * this many in flight or more: a tentative cap of three or more. Under it the
 * refusal is a limit's burst of one or two, or a cap too small to tell from a
 * rate of a request or two per round trip, and a cap of one or two held on
 * second-long pages starves the check that would refute it.
 */
const BLIND_TRIAL_INFLIGHT = 4;

/**
 * ... and only when it asked for a pause this long at most, ms: a rate limit
 * taken for a cap refutes the trial with a second refusal, paying its pause
 * again (a constant `Retry-After` of 2-5 s paid twice cost more than the
 * guessed rate it would have held).
 */
const BLIND_TRIAL_PAUSE_MS = 1000;

/**
 * Whether the scope's first refusal, come before any success (`sample`: the
 * first round trip's burst refused, its successes not yet in), opens a cap on
 * trial ({@link CapTrial}) rather than leave the rate a guess from what was in
 * flight. Refused at the fourth of four sent at once, a concurrency cap of
 * three and a limit of burst three look the same; read as a rate, the cap was
 * guessed at three or four requests a second and its rate climbed to the cap's
 * throughput only by refusals the rate took for its own (held at two thirds of
 * it, or reached in 5-14 s). On trial, a cap is held from the pause's end and
 * confirmed by its check; a rate limit refutes it as sending resumes, or by a
 * success past the cap (see `CapTrial`'s blind trial).
 */
export function opensBlindTrial(sample: Sample): boolean {
  const asked = sample.signal.retryAfterMs ?? 0;
  return sample.inflight >= BLIND_TRIAL_INFLIGHT && asked <= BLIND_TRIAL_PAUSE_MS;
}
