import type { RateMeter } from './rate-meter.js';
import type { Sample } from './sample.js';

/** A refused probe is judged by the sends of at least this span before it, ms. */
const MIN_PROBE_SPAN_MS = 1000;
/** A probe from a guess is judged by at least this many sends at the rate refused. */
const JUDGED_SENDS = 8;

/** The sends a refused probe is judged by, and whether they were sent calmly. */
export interface ProbeSpan {
  /** The span before the refused send whose accepted sends are counted, ms. */
  readonly spanMs: number;
  /** Whether no server pause disturbed that span (see {@link RateMeter.calm}). */
  readonly calm: boolean;
}

/**
 * The sends a probe refused at `current` (requests/s) is judged by. A probe
 * from a measured ceiling is judged by the sends since it started (before it,
 * the rate was lower); one from a ceiling guessed from nothing (refused before
 * anything was measured) by its last second, or its last {@link JUDGED_SENDS}
 * sends at the rate refused if they took longer: it climbed from a guess
 * that may be a fraction of the capacity, and its whole climb averages far
 * below where it ended. Never longer than the meter's window.
 *
 * `calm` is the meter's verdict at the refusal (no pause in its last two
 * windows). A guess was read at a refusal that asked for a pause, and on a
 * slow scope the window is long: the probe that checks the guess, seconds
 * later, falls within two windows of that pause, and its refusal would be
 * read as a grant soon after a pause (half the rate refused, no recount).
 * Its span is calm if that pause ended, and a round trip passed, before the
 * span began: the sends counted are all the probe's.
 */
export function refusedProbeSpan(
  sample: Sample,
  current: number,
  startedAt: number,
  guessed: boolean,
  meter: RateMeter,
  calm: boolean,
): ProbeSpan {
  const since = guessed ? (1000 * JUDGED_SENDS) / current : sample.sentAt - startedAt;
  const spanMs = Math.min(meter.windowMs, Math.max(MIN_PROBE_SPAN_MS, since));
  const settled = meter.pauses.end + meter.rttMs <= sample.sentAt - spanMs;
  return { spanMs, calm: calm || (guessed && settled) };
}
