import type { GrantWindow } from './first-count.js';
import { DEEPEST_CUT } from './rate-meter.js';
import type { Sample } from './sample.js';

/** The first ceiling is recounted over the requests sent in this span before the first refusal. */
export const FIRST_RECOUNT_SPAN_MS = 1000;

/**
 * A ceiling to recount by send time: a refusal arrives before the requests
 * the server accepted just ahead of it (a 429 is quick, a page takes a round
 * trip), so the ceiling learned at the refusal is an estimate. Once those
 * outcomes are in — a pause or two round trips later — the accepted requests
 * sent in [`from`, `to`], per `spanMs`, are the measurement.
 */
export interface Recount {
  from: number;
  to: number;
  spanMs: number;
  /** When the outcomes it counts are in. */
  at: number;
  /** Bounds of the recounted ceiling, requests/s. */
  min: number;
  max: number;
  /** The refused send whose cut it recounts: the count is per the server's memory up to it at most (see `RateMeter.remembered`). */
  refusedSentAt?: number;
  /** Whether the count may only raise the ceiling. */
  raiseOnly: boolean;
  /** The pause the refusal asked for, ms, for the first count's charge (pauses after it were the server still closed). */
  pauseMs?: number;
  /** Whether the accepted sends' fastest spacing may raise it (see `SpacingTrial`). */
  spaced?: boolean;
  /**
   * Whether only the spacing may raise it, the count left unread: the probe
   * found the ceiling where it was (its reading within 5 %), and a slow
   * scope's count of a send or two reads its climb, not the capacity.
   */
  spacingOnly?: boolean;
  /** Whether it reads a probe refused with a pause (see `CeilingRecounts.due`). */
  pausedProbe?: boolean;
  /**
   * A first count's bound: the sends granted since a refuted cap trial's pause
   * (see `boundedByGrant`), read once they are in, at `at`.
   */
  grant?: { window: GrantWindow; at: number };
  /**
   * Whether it counts every acceptance since sending began (see
   * `RateMeter.acceptedSentSinceStart`), not the kept send times: a first
   * count over a second that began before the first send.
   */
  fromStart?: boolean;
  /** Whether a count since the start is charged to the probe budget like a probe's reading. */
  charged?: boolean;
  /** The measured ceiling a refused probe climbed from (see `RefutedRaise`). */
  probedFrom?: number;
  /** The count taken at `at`, kept while the grant's sends are answered. */
  counted?: { count: number; fromMs: number };
}

/**
 * When a recount after the refusal `sample` can count: once its pause, two of
 * its round trips and at least a second have passed, and the requests sent
 * with it have had twice `answerMs` — the accepted requests' round trip —
 * to be answered (a slow page takes far longer than a quick refusal: counted
 * earlier, the grant of a server that answers in seconds reads as a fraction).
 */
function dueAfter(sample: Sample, answerMs: number): number {
  const waitMs = Math.max(
    sample.signal.retryAfterMs ?? 0,
    2 * (sample.at - sample.sentAt),
    FIRST_RECOUNT_SPAN_MS,
  );
  return Math.max(sample.at + waitMs, sample.sentAt + 2 * answerMs);
}

/**
 * The first refusal while unpaced: the accepted requests sent in the second
 * of sending before it (`pausedMs` of server-requested pause within it left
 * out). The ceiling read at the refusal is an undercount (slow start
 * ramps faster than an average follows), so the count may only raise it.
 * `answerMs`: the accepted requests' round trip, ms (here and below).
 */
export function firstCeilingRecount(sample: Sample, pausedMs = 0, answerMs = 0): Recount {
  const to = sample.sentAt;
  const spanMs = FIRST_RECOUNT_SPAN_MS;
  return {
    // A second of sending: time the server had us paused in it does not count.
    from: to - spanMs - pausedMs,
    to,
    spanMs,
    at: dueAfter(sample, answerMs),
    min: 0,
    max: Infinity,
    raiseOnly: true,
  };
}

/**
 * A refusal soon after a pause that asks for another: the sends the server
 * granted in `window` (see `LatestPause.grantWindow`), bounded like the cut it
 * refines: at most the `current` rate that failed, at least `DEEPEST_CUT` of it.
 */
export function grantRecount(
  sample: Sample,
  window: { from: number; to: number; spanMs: number },
  current: number,
  answerMs = 0,
): Recount {
  return {
    ...window,
    at: dueAfter(sample, answerMs),
    min: current * DEEPEST_CUT,
    max: current,
    raiseOnly: false,
  };
}

/**
 * The ceiling that the accepted sends counted since `fromMs` make (see
 * `RateMeter.acceptedSentIn`), or undefined when `ceiling` should stay. When
 * the count could not reach back to the recount's start (the kept sends are
 * fewer than a fast scope sent), the sends it misses are taken to have been
 * as dense as those it covers — over the time sent, not over a pause the
 * span includes.
 */
export function recountedCeiling(
  recount: Recount,
  counted: { count: number; fromMs: number },
  ceiling: number,
): number | undefined {
  if (!(recount.spanMs > 0)) return undefined;
  let accepted = counted.count;
  if (counted.fromMs > recount.from) {
    const coveredMs = recount.to - counted.fromMs;
    if (!(coveredMs > 0)) return undefined;
    const sendingMs = Math.min(recount.to - recount.from, recount.spanMs);
    accepted = (counted.count * sendingMs) / coveredMs;
  }
  const rate = (accepted * 1000) / recount.spanMs;
  const bounded = Math.min(recount.max, Math.max(recount.min, rate));
  if (bounded === ceiling || (recount.raiseOnly && bounded < ceiling)) return undefined;
  return bounded;
}

/**
 * A refusal of a probe: the accepted sends of the `spanMs` before the refused
 * one (the server was being asked for more than it grants all along), between
 * `bounds.min` (the ceiling the probe started from) and `bounds.max` (the
 * rate that failed); `spaced`: the sends' fastest spacing may raise it;
 * `spacingOnly`: nothing else may (see {@link Recount.spacingOnly}).
 */
export function probeRecount(
  sample: Sample,
  spanMs: number,
  bounds: { min: number; max: number },
  answerMs = 0,
  spaced = false,
  spacingOnly = false,
): Recount {
  const to = sample.sentAt;
  const at = dueAfter(sample, answerMs);
  return { from: to - spanMs, to, spanMs, at, ...bounds, raiseOnly: false, spaced, spacingOnly };
}
