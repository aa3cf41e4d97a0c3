import { probingRate } from './probe-curve.js';
import type { CeilingGuess, RateParts } from './rate-parts.js';

/** A probe's clock runs only while the server is accepting at least this share of what is sent. */
const IN_USE = 0.6;
/** Idleness is judged only when a window should hold at least this many requests. */
const MIN_JUDGED = 8;
/**
 * A probe from a ceiling guessed from three or more in flight (see `RateParts.guess`) doubles its excess
 * this many times as often: as steep as a slow start, where a probe from a
 * measured ceiling starts gently (a capacity that did not move is exceeded by
 * little). Still never more than twice what the server accepts.
 */
const GUESS_CLIMB = 4;
/**
 * A probe from a ceiling guessed from one or two in flight (`gentle` or `burstless`), or a lower
 * bound read from the slow start's own sends (`bound`), doubles its
 * excess this many times as often as a measured ceiling's. That guess, about 2 req/s, says only
 * that the limit's burst is under two: the limits that refuse so are slow ones (1-6 req/s) as
 * often as fast ones of burst 1 or 2 on short pages (12-30 req/s), which the gentle curve took
 * 7-10 s to reach. Twice as steep, it reaches them in 4-6 s; as steep as a slow start (see
 * {@link GUESS_CLIMB}), its climb overshot the slow ones by the time their refusal came back.
 */
const GENTLE_GUESS_CLIMB = 2;

/** How many times as often as a measured ceiling's a probe from a ceiling of kind `guess` doubles its excess. */
function climbOf(guess: CeilingGuess): number {
  if (guess === 'none') return 1;
  return guess === 'steep' ? GUESS_CLIMB : GENTLE_GUESS_CLIMB;
}

/**
 * The rate an adaptive rate's `parts` have learned, requests/s, before the
 * caps (documented rate, quota): `margin` below the learned ceiling, or on the
 * probe's curve above it while a probe runs (see {@link probingRate}); never
 * below `minRate`. `Infinity` while unpaced (no parts yet, or no ceiling).
 */
export function learnedRate(parts: RateParts | undefined): number {
  if (parts === undefined || parts.decisions.ceiling === 0) return Infinity;
  const { ceiling, margin } = parts.decisions;
  const { prober, meter } = parts;
  const probeMs = prober.probeMs;
  const { minRate, probeStep: firstStep, probeDoublingMs: doublingMs } = parts.settings;
  if (probeMs === undefined) return Math.max(minRate, ceiling * (1 - margin));
  const accepted = meter.accepted(parts.now) ?? 0;
  const curve = {
    ceiling,
    firstStep,
    doublingMs: doublingMs / climbOf(parts.guess),
  };
  return probingRate(curve, probeMs, accepted, minRate);
}

/**
 * Whether, at `at`, the server accepts clearly less than the learned rate
 * (under 60 % of it, judged once a window holds enough requests at it): the
 * demand or the concurrency limit binds, not the rate, so a probe tests
 * nothing and its clock stands still.
 */
export function learnedRateIdle(parts: RateParts, at: number): boolean {
  const { meter } = parts;
  const rate = learnedRate(parts);
  if ((rate * meter.windowMs) / 1000 < MIN_JUDGED) return false;
  const accepted = meter.accepted(at);
  return accepted !== undefined && accepted < IN_USE * rate;
}
