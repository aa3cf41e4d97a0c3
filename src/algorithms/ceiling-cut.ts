import type { AdaptiveRateSettings } from './adaptive-rate-options.js';
import type { AlarmCuts, LearnedCeiling } from './alarm-cuts.js';
import { type CeilingRecounts, confirmsWithinASend } from './ceiling-recounts.js';
import { startsNewEvent } from './congestion.js';
import { namesNoPause } from './free-probe.js';
import { adaptedMargin, refutedReadingMargin } from './margin.js';
import { penaltyAsked } from './penalty-spells.js';
import { CONSTANT_PAUSE_MS } from './probe-aftermath.js';
import { refusedProbeSpan } from './probe-span.js';
import type { CutReport, Prober } from './prober.js';
import type { RateDecisions } from './rate-decisions.js';
import type { RateMeter } from './rate-meter.js';
import { type CeilingGuess, gentleGuess } from './rate-parts.js';
import { isRefusal, type Sample } from './sample.js';

/** A refusal at the held rate lowers the ceiling to no less than this share of that rate. */
const HELD_CUT = 0.5;
/**
 * A ceiling guessed from fewer requests in flight than this is probed from
 * less steeply (see `learnedRate`): a limit that let one or two through at once
 * is often a slow one (1-6 req/s), the guess within a few times its capacity, its
 * readings a few sends each, and a climb as steep as a slow start there
 * overshoots in a send or two.
 */
const STEEP_GUESS = 3;
/** Probes are not started by the budget alone: also no sooner than this many round trips after a cut. */
const HOLD_RTTS = 4;
/** A grant read soon after a pause says only "at least" when the floor over that pause is this many requests or more. */
const BOUND_REQUESTS = 8;
/**
 * An aftermath's return under this share of the rate it refused leaves the capacity between them
 * unread: half way to the rate held before the probe comes under it only where the probe climbed
 * past 2.5 times that rate before a refusal (a capacity that rose, not one that fell as it probed).
 */
const UNREAD_SHARE = 0.7;
/** A pause asked again is the same one if the pause it brought was at most this share longer. */
const SAME_PAUSE = 0.25;
/**
 * A `Retry-After` of this much or less, ms, names a wait of a second or two: what a whole-second
 * value (delta-seconds or an HTTP-date) says of a server that reopens within the second (see
 * `askedShorter`).
 */
const REOPENS_WITHIN_MS = 2000;
/** A pause this many times what the server now asks, or more, was not its wait (see `askedShorter`). */
const SHORTER_BY = 2;

/** The parts of an adaptive rate a cut reads and moves. */
export interface CutParts {
  readonly settings: AdaptiveRateSettings;
  readonly meter: RateMeter;
  readonly prober: Prober;
  readonly recounts: CeilingRecounts;
  readonly alarm: AlarmCuts;
  /** Whether the ceiling is a guess, and how its probe climbs (see `RateParts.guess`). */
  guess: CeilingGuess;
}

/**
 * What a refusal (or another sign to slow down) does to the `decisions`, once
 * per congestion event: the ceiling becomes the rate the server granted before
 * refusing ({@link RateMeter.ceilingAt}, recounted by send time once the
 * outcomes are in), no lower than {@link lowestCeiling}; a probe that found
 * the ceiling where it was keeps it, and one that did not holds at least a
 * probe step below the rate refused until its recount is in (a free probe,
 * its floor: see `namesNoPause`); a refusal in a
 * refused probe's aftermath that asks for the same long pause again returns
 * to what the probe's refusal read, or halves the gap between the rate refused
 * and the rate held before the probe (see {@link Prober.aftermathCeiling}); the margin adapts
 * ({@link adaptedMargin}), and on a slow scope widens where a refusal refutes the last refused
 * probe's reading without that return ({@link refutesProbeReading});
 * `cut-hard` (an overload) takes `overloadRatio` more off and holds longer. The
 * prober settles the probe's bill; a cut at a held rate that left only a
 * bound (see {@link leavesOnlyBound}) owes it the next probe, as does one in a
 * refused probe's aftermath whose return came under {@link UNREAD_SHARE} of
 * the rate refused (once per refused probe: see `Prober.oweAftermath`).
 * `current` is the learned rate that was refused; `probeStartedAt`, when the
 * probe (if any) started.
 */
export function cutOnRefusal(
  decisions: RateDecisions,
  sample: Sample,
  speed: 'cut' | 'cut-hard',
  current: number,
  probeStartedAt: number,
  parts: CutParts,
): void {
  const { settings, meter, prober, recounts, alarm } = parts;
  if (!startsNewEvent(sample, decisions.lastDecreaseAt)) {
    prober.onRefusal();
    return;
  }
  const { at } = sample;
  alarm.forget(); // a refusal outranks a latency alarm: never undo this cut
  decisions.lastDecreaseAt = at;
  const read = meter.ceilingAt(sample, current);
  if (read?.remembered === true) prober.recallPeak(at, read.ceiling);
  const probing = prober.probeMs !== undefined;
  // A probe's reading no higher than a raise the held rate refuted is worth what that refusal read.
  const measured =
    probing && read !== undefined
      ? { ...read, ceiling: recounts.refutedRaise.worth(read.ceiling) }
      : read;
  const learned = { ceiling: decisions.ceiling, margin: decisions.margin };
  // The rate held before the probe drew no cut, and the probe's own reading
  // is no lower (lower, the capacity fell while it probed).
  const held = learned.ceiling * (1 - learned.margin);
  const proven = probing && prober.heldUncut && (measured?.ceiling ?? 0) >= held;
  const met = meter.openingBurst.met(sample);
  const lowest = lowestCeiling(met, current, measured !== undefined, learned, probing, proven);
  const floor = Math.max(settings.minRate, lowest);
  // A penalty met again after the same count reads what the server granted over both spells and
  // the block between: not recounted by send time (the spells were sent faster than granted).
  const counted = measured !== undefined && meter.pauses.penaltyRead(sample) <= measured.ceiling;
  // A raise refused at the held rate (see `RaiseTrial`): back to where it started.
  const raised = recounts.raise.refuted(measured?.ceiling, current, probing);
  const { margin, confirmed } = adaptedMargin(learned, measured?.ceiling, probing);
  const least = recounts.raise.leastMargin(learned.ceiling);
  decisions.margin = Math.max(margin, Math.min(learned.margin, least));
  const report: CutReport = {
    at,
    current,
    heldBeforeProbe: decisions.ceiling * (1 - decisions.margin),
    confirmed,
    refusal: isRefusal(sample),
    windowMs: meter.windowMs,
    retryAfterMs: sample.signal.retryAfterMs,
    calm: current !== Infinity && measured?.calm === true,
  };
  const aftermath = probing ? undefined : prober.aftermathCeiling(report);
  const refuted = refutesProbeReading(sample, current, measured, parts);
  if (refuted && aftermath === undefined && !confirmed && meter.slow) {
    decisions.margin = refutedReadingMargin(decisions.margin);
  }
  // A proven probe that confirmed a slow scope's ceiling keeps it, but may have confirmed it within
  // a send, not 5 %: its spacing alone is recounted (see `Recount.spacingOnly`).
  const doublingMs = settings.probeDoublingMs;
  const spacingOnly = proven && confirmed && confirmsWithinASend(learned.ceiling, doublingMs);
  // A probe that found the ceiling where it was keeps it (the reading is no
  // better than the one it confirms, and the held rate was refusal-free).
  let ceiling = confirmed && probing ? decisions.ceiling : Math.max(floor, measured?.ceiling ?? 0);
  // A ceiling raised by a probe's spacing and refused as held read a burst:
  // back to the ceiling the probe's count made, margin and all.
  const base = probing ? undefined : recounts.trial.refuted();
  if (base !== undefined) {
    ceiling = base;
    decisions.margin = learned.margin;
  } else if (raised !== undefined) {
    ceiling = raised.ceiling;
    decisions.margin = raised.margin ?? learned.margin;
  } else if (aftermath !== undefined) {
    // The refused probe's recount was too high and the pause since says too
    // little: back to what its refusal read, or half way to the rate held before it.
    ceiling = Math.max(floor, aftermath);
  } else if (measured !== undefined && !counted && (!(confirmed && probing) || spacingOnly)) {
    const fromGuess = parts.guess !== 'none';
    const span = probing
      ? refusedProbeSpan(sample, current, probeStartedAt, fromGuess, meter, measured.calm)
      : undefined;
    const calm = span?.calm ?? measured.calm;
    const cut = {
      current,
      calm,
      floor,
      probeSpanMs: span?.spanMs,
      proven: proven || parts.guess === 'burstless',
      confirmed: probing && confirmed,
      fromGuess,
      ...(probing && !fromGuess ? { probedFrom: learned.ceiling } : {}),
    };
    // Until its recount says what the server granted, a refused probe holds at
    // least a probe step below the rate refused: resumed at a reading close to
    // it (after a short pause, before the count is in), the next send may be
    // refused again, and that refusal cuts by half. A free probe (its refusal
    // named no pause, see `namesNoPause`) holds its floor: with no pause to
    // drain what it sent over the limit, a guess above the capacity is
    // refused a window later, after its recount, as the rate held. The floor
    // of a probe that checked a guessed ceiling is that guess, nothing
    // measured (see `freeProbeHold`).
    if (recounts.plan(sample, cut, meter, settings.minPauseMs) && probing) {
      const guess = Math.min(ceiling, current / (1 + settings.probeStep));
      ceiling =
        isRefusal(sample) && namesNoPause(sample)
          ? freeProbeHold(current, floor, fromGuess)
          : Math.max(floor, guess);
    }
  }
  if (probing && parts.guess === 'none') recounts.refutedRaise.raised(learned.ceiling, ceiling, at);
  if (probing && prober.heldUncut) recounts.trial.passed();
  if (probing && confirmed && decisions.margin < learned.margin)
    recounts.raise.raised({ ...learned, proven: prober.heldUncut });
  if (speed === 'cut-hard') ceiling *= settings.overloadRatio;
  if (probing) report.read = ceiling * (1 - decisions.margin);
  prober.onCut(report, decisions.ceiling);
  // A penalty's bound is left to the budget: its probe costs the penalty.
  const penaltyMs = penaltyAsked(sample);
  const owing = raised?.proven !== true && penaltyMs === 0;
  if (!probing && owing && leavesOnlyBound(sample, measured, floor, meter)) {
    if (aftermath === undefined) prober.owe();
    else if (ceiling < current * UNREAD_SHARE) prober.oweAftermath();
  }
  decisions.ceiling = ceiling;
  // A raise refuted by a refusal that named no pause cost a refusal, not a pause: left to the next probe.
  if (!probing && isRefusal(sample) && !namesNoPause(sample))
    recounts.refutedRaise.heldRefused(at, ceiling);
  const unpaced = current === Infinity;
  // A guess from nothing read from a refusal of the opening burst is read again once it is answered.
  if (unpaced && measured === undefined) meter.openingBurst.guessed(sample, ceiling);
  const holdMs = speed === 'cut-hard' ? settings.overloadHoldMs : settings.minHoldMs;
  const rttMs = at - sample.sentAt;
  decisions.holdUntil = Math.max(decisions.holdUntil, at + Math.max(holdMs, HOLD_RTTS * rttMs));
  // A first ceiling read from nothing (refused before anything was measured)
  // is a guess: the budget starts with a probe's worth to check it soon, and
  // that probe climbs steeply from three or more in flight (see RateParts.guess).
  // One read from the unpaced slow start's own sends is only a lower bound
  // (see `UNPACED_READING`): checked soon as well, climbing as a gentle guess's.
  // A cut at the held rate measures what a lower bound's check was to find: its probe's worth goes.
  if (!probing && parts.guess === UNPACED_READING) prober.forgoGuessCheck();
  // A lower bound read from the slow start's sends is not checked at once after a penalty: that
  // check costs the penalty (a guess read from nothing still is: it may be a tenth of the capacity).
  const checked = measured === undefined || (unpaced && penaltyMs === 0);
  prober.openBudget(at, checked ? 1 : 0);
  parts.guess = firstGuess(unpaced, measured !== undefined, ceiling, meter, at);
}

/**
 * A ceiling guessed from a refusal of the opening burst before the burst was
 * all answered is read again once it is, one correction at most (see
 * `OpeningBurst`): in send order it reads what the guess read, and no
 * decision follows; out of order, what the burst met. Only a guess still held
 * before its check: once the hold is over, the probe that checks the guess
 * reads the capacity from sends. On second-long pages the burst's last answer
 * comes after that (s1 #128, a 1.1 req/s window, 1.6 s pages: read at 2 from
 * four sent as its check began, refused as it climbed, the pauses doubled and
 * the rate was cut to 0.5; s2 #137, a bucket's guess raised under its probe).
 */
export function reguessFromBurst(decisions: RateDecisions, at: number, parts: CutParts): void {
  const { meter, settings } = parts;
  const reread = meter.openingBurst.reread(decisions.ceiling);
  if (reread === undefined || !fromNothing(parts.guess) || at >= decisions.holdUntil) return;
  decisions.ceiling = Math.max(settings.minRate, reread);
  parts.guess = firstGuess(true, false, decisions.ceiling, meter, at);
}

/** Whether a ceiling guess was read from nothing (refused before anything was measured). */
function fromNothing(guess: CeilingGuess): boolean {
  return guess !== 'none' && guess !== UNPACED_READING;
}

/**
 * Whether a refusal at the held rate `current` refutes the last refused
 * probe's reading: it is the first in that probe's aftermath (see
 * {@link Prober.firstInAftermath}: the first refusal of the rate the probe's
 * reading set) and its reading is the whole rate held (`measured` no lower:
 * every send since the pause was granted, so the refusal is the hold's, not a
 * capacity that fell under it). The margin then widens (see
 * `refutedReadingMargin`) on a slow scope ({@link RateMeter.slow}: a pause's
 * refill is a large share of a reading that counts few sends; on a fast one, a
 * refusal after a probe is as often a capacity or an unseen consumer that
 * moved, and widening there cost 1.5-3.5 points of goodput with no refusal
 * saved: seed 1 #198, #158, #185, the seeds bench's 30 req/s token bucket),
 * unless the cut found the ceiling where it was (it widens the margin itself)
 * or returns to the probe's own reading (a constant long pause: see
 * `Prober.aftermathCeiling`); either way, that first refusal is the one taken
 * (one widening a refused probe at most).
 */
function refutesProbeReading(
  sample: Sample,
  current: number,
  measured: { ceiling: number } | undefined,
  { meter, prober }: CutParts,
): boolean {
  if (!isRefusal(sample)) return false;
  const first = prober.firstInAftermath({ at: sample.at, current, windowMs: meter.windowMs });
  return first && measured !== undefined && measured.ceiling >= current;
}

/**
 * What a cut makes of the `ceiling` it leaves (see `RateParts.guess`): a
 * guess only at the first cut, refused while `unpaced`. Read from nothing (not
 * `measured`), as many per second as were in flight, it is checked steeply from
 * {@link STEEP_GUESS} or more; read from what was sent unpaced (measured), it
 * is a lower bound, see {@link UNPACED_READING}.
 */
function firstGuess(
  unpaced: boolean,
  measured: boolean,
  ceiling: number,
  meter: RateMeter,
  at: number,
): CeilingGuess {
  if (!unpaced) return 'none';
  if (measured) return UNPACED_READING;
  return ceiling >= STEEP_GUESS ? 'steep' : gentleGuess(meter, at);
}

/**
 * A first ceiling read from what was sent unpaced (the slow start's own sends)
 * is a lower bound, checked as a gentle guess is (its probe doubling its excess
 * twice as often as a measured ceiling's, see `learnedRate`), with a probe's
 * worth in the budget. A slow start refused by a bucket's or a GCRA's burst was
 * sending in bursts a round trip apart, below the limit's rate: its count (9.7
 * of 25.9 req/s, 14.6 of 36.4, 44.7 of 96.3 on the family's seed 3) is what it
 * sent, not what the server grants, and held as a measured ceiling it waited
 * for the budget's first probe (half a minute or more) or climbed gently from
 * there for 7 s. A 1 s window's count over-reads instead; its held rate is
 * refused at once, and that cut ends the guess and takes back the probe's
 * worth (`Prober.forgoGuessCheck`): the cut measured what the check was to
 * find, and the spare probe went out refused within seconds (a 6.6 req/s
 * window of seed 3, #72, at 8 s where main's first came at 22 s).
 */
const UNPACED_READING: CeilingGuess = 'bound';

/**
 * The lowest ceiling one congestion event may leave, refused at the learned
 * rate `current` (`Infinity`: unpaced), with `learned` the ceiling before it
 * and `probing` whether the rate was probing above it. A probe refused says
 * only that the capacity is below the probe, not below the rate held without
 * refusal before it; a refusal at the held rate lowers it by at most half (a
 * reading taken across a pause or at a slow pace can be far too low, and the
 * next probe may be a long way off); refused before anything was `measured`
 * (a burst limit met at once), as many per second as it `met` (see
 * `OpeningBurst.met`: its count at send, in flight) — a guess
 * the first probes soon correct. `proven`: the rate held before the probe drew
 * no cut since the last refused probe, so the probe leaves the ceiling it
 * started from (a slow scope's recount, a few requests counted over the
 * probe's climb, reads below that rate, and the margin taken off again at each
 * probe ratcheted a refusal-free rate down).
 */
export function lowestCeiling(
  met: number,
  current: number,
  measured: boolean,
  learned: LearnedCeiling,
  probing: boolean,
  proven = false,
): number {
  if (current === Infinity) return measured ? 0 : met;
  if (probing) return proven ? learned.ceiling : learned.ceiling * (1 - learned.margin);
  return current * HELD_CUT;
}

/**
 * The ceiling a free probe (its refusal named no pause), refused at `current`, holds until its
 * recount is in: its `floor`, the rate held before it, or for a probe that checked a ceiling
 * guessed from nothing (`fromGuess`), at least {@link HELD_CUT} of the rate refused. That guess
 * ("as many per second as were in flight", 2-10 req/s) is no rate the server granted, and the
 * probe climbed to the rate refused through rates it granted: held at the guess for the second or
 * two its recount takes (three on second-long pages), a fast limit of small burst was sent a
 * tenth of its capacity. Half the rate refused is under the capacity of a limit that refills as it
 * goes, whose probe climbed at most twice what it accepted; one whose probe spent a window refuses
 * the next sends at it, and that is the probe's aftermath (see `FreeProbeAftermath`).
 */
function freeProbeHold(current: number, floor: number, fromGuess: boolean): number {
  return fromGuess ? Math.max(floor, current * HELD_CUT) : floor;
}

/**
 * Whether a cut at a held rate left only a lower bound on the capacity: its
 * reading — what the server granted since the last pause, per that pause —
 * came to the `floor` or under, the refusal asks again for the constant pause
 * of 2 s or more that brought that pause or names a shorter one than that
 * pause (see {@link askedShorter}), and the floor over the pause is
 * {@link BOUND_REQUESTS} requests or more. A server whose `Retry-After` is a
 * constant longer than its window (2–5 s on a 1 s window) grants a window's
 * worth in a fraction of a second and is read at W/P of it; the floor (half
 * the rate refused) is then only a bound, and the capacity between it and the
 * rate refused is worth a probe at once, whatever a probe costs — held at the
 * bound until the budget's next probe, a minute or more of pause-priced
 * probing, loses far more. A pause that is the window's real wait reads the
 * grant right, and a cut to its floor is a capacity that fell (a probe then is
 * one more refusal); a few requests read over a pause at a slow pace say
 * nothing either way: both left to the budget.
 */
function leavesOnlyBound(
  sample: Sample,
  measured: { ceiling: number; calm: boolean } | undefined,
  floor: number,
  meter: RateMeter,
): boolean {
  if (measured === undefined || measured.calm || measured.ceiling > floor) return false;
  const pausedMs = meter.pauses.lengthMs;
  const askedMs = sample.signal.retryAfterMs;
  if (!askedAgain(askedMs, pausedMs) && !askedShorter(askedMs, pausedMs)) return false;
  return (floor * pausedMs) / 1000 >= BOUND_REQUESTS;
}

/**
 * Whether a refusal's `Retry-After` (`askedMs`) names a wait of a second or two
 * ({@link REOPENS_WITHIN_MS}) where the `pausedMs` just taken was at least {@link SHORTER_BY}
 * times as long: the grant was read over a pause longer than the server's wait, so that grant per
 * the pause is only a bound. An HTTP-date's whole seconds give this: a 1 s window refused early in
 * its second asks 2 s, one refused late 1 s (the family's 1 s windows answering an HTTP-date: a
 * held rate read at half the capacity after a 2 s pause, asked 1 s, held there for a minute); so
 * does a pause the controller doubled for a server found closed as sending resumed (4 s, then
 * asked 2 s). A longer ask, or one nearer the pause, is left out: a 10 s or 60 s window's real
 * wait shrinks as it drains, and that pause reads the grant right (the field's sliding counters
 * answering their wait, owed a probe for 3 s asked after 58 s or 2 s after 3 s, were refused more).
 */
function askedShorter(askedMs: number | undefined, pausedMs: number): boolean {
  if (askedMs === undefined || askedMs <= 0 || askedMs > REOPENS_WITHIN_MS) return false;
  return pausedMs >= askedMs * SHORTER_BY;
}

/**
 * Whether a refusal's `Retry-After` (`askedMs`) is a constant pause of
 * {@link CONSTANT_PAUSE_MS} or more: the one the server asked before, which
 * brought the pause of `pausedMs` just taken (a burst's refusals, each asking
 * from its own arrival, lengthen it by up to a {@link SAME_PAUSE} share).
 */
function askedAgain(askedMs: number | undefined, pausedMs: number): boolean {
  if (askedMs === undefined || askedMs < CONSTANT_PAUSE_MS) return false;
  return pausedMs >= askedMs && pausedMs <= askedMs * (1 + SAME_PAUSE);
}
