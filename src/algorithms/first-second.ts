import type { RateMeter } from './rate-meter.js';
import type { Recount } from './recount.js';
import type { Sample } from './sample.js';

/** A first refusal asking a pause this long or longer reads its first second whole (see {@link inFirstSecond}). */
const LONG_PAUSE_MS = 1000;

/**
 * Such a count whose refusal asked a pause this long or longer is charged to the probe budget as
 * a probe's reading (see `CeilingRecounts.due`; billed a second at most, `firstCountCharge`): the
 * next probe waits until the budget has earned it. Under it (a whole-second HTTP-date, a bucket's
 * wait for its next token), the budget's first probe comes as soon as the hold is over: a bucket
 * whose rate outruns its burst is read low over a whole second (its burst and a fraction of a
 * second's refill), and a probe there costs a second's pause at most.
 */
const CHARGED_PAUSE_MS = 2000;

/**
 * A first count whose refusal named a pause of {@link LONG_PAUSE_MS} or more
 * and came within a second of the first send: every send accepted since
 * sending began, over the whole second (the time before the first send
 * included), and it may lower the ceiling read at the refusal. A limit that
 * refused inside its first second granted that count in a second at least —
 * a 1 s window or log grants its whole count in the fraction of it a slow
 * start takes to reach it, and the count over that fraction (two or three
 * times the capacity) is refused again a fraction into each window after the
 * pause, each time for a pause as long. Where a refusal costs a second or
 * more of silence, a pace under the capacity costs less than one over it.
 */
export function inFirstSecond(recount: Recount, first: Sample, startedAt: number): Recount {
  const askedMs = first.signal.retryAfterMs ?? 0;
  if (askedMs < LONG_PAUSE_MS || !(startedAt > recount.to - recount.spanMs)) return recount;
  const charged = askedMs >= CHARGED_PAUSE_MS;
  return { ...recount, from: startedAt, raiseOnly: false, fromStart: true, charged };
}

/**
 * Whether a first count since the start (see {@link Recount.fromStart}) is in
 * before it is due: nothing is in flight (`drained`), so every send before the
 * refusal was answered — read in its pause, the count sets the pace sending
 * resumes at, where the refusal's reading would send a round trip of requests
 * at twice the capacity first.
 */
export function earlyCount(recount: Recount, drained: boolean): boolean {
  return recount.fromStart === true && drained;
}

/** The accepted sends a `recount` counts (see {@link Recount.fromStart}). */
export function countOf(
  recount: Recount,
  meter: RateMeter,
): { count: number; fromMs: number } | undefined {
  if (recount.fromStart === true) return meter.acceptedSentSinceStart(recount.to);
  return meter.acceptedSentIn(recount.from, recount.to);
}
