import { boundedByGrant, type GrantWindow } from './first-count.js';
import { firstCountCharge } from './first-count-charge.js';
import { countOf, earlyCount, inFirstSecond } from './first-second.js';
import { namesNoPause } from './free-probe.js';
import { RaiseTrial } from './raise-trial.js';
import type { RateMeter } from './rate-meter.js';
import {
  FIRST_RECOUNT_SPAN_MS,
  firstCeilingRecount,
  grantRecount,
  probeRecount,
  type Recount,
  recountedCeiling,
} from './recount.js';
import { FIRST_UNHINTED_PAUSE_MS } from './refusal-pause.js';
import { RefutedRaise } from './refuted-raise.js';
import { isRefusal, type Sample } from './sample.js';
import { SpacingTrial } from './spacing-trial.js';
import { SpanTally } from './span-tally.js';

/** A refused probe's count of fewer accepted sends than this reads its climb more than the capacity: its spacing may raise it. */
const COARSE_COUNT = 20;
/** A refuted cap trial's sends are taken as answered this many mean round trips after the last. */
const ANSWERED_RTTS = 1.5;
/**
 * A refused probe whose count reads more than this share below the rate
 * refused climbed further than its count can tell (see {@link CeilingRecounts.due}).
 */
const WIDE = 0.2;

/** The last part of a refused probe's span whose accepted sends say what it sent at the end. */
const END_SHARE = 0.25;

/** Whom a recount bills: the prober. */
export interface RecountBill {
  /** Pays for a first ceiling counted in full (the pause billed for it, ms: see `firstCountCharge`). */
  chargeFirstCount(pauseMs: number): void;
  /** Owes the next probe, told a refused probe's `count` (requests/s) read far below the rate refused. */
  owe(count: number): void;
}

/**
 * A probe whose steps (each doubling of its excess) hold fewer sends than this at its ceiling — a
 * scope of a few requests a second — confirms its ceiling within a send, not within 5 %.
 */
const FEW_SENDS_PER_STEP = 8;

/**
 * Whether a refused probe that confirmed `ceiling` (requests/s), its excess doubling every
 * `doublingMs`, may still be raised by its spacing (see {@link Recount.spacingOnly}): its steps
 * held a send or few. Where they held more, its confirmation stands (on a 10 req/s window, or a
 * 15 req/s one, the spacing of a confirmed probe read the window's burst: a held refusal, and the
 * probes' schedule moved).
 */
export function confirmsWithinASend(ceiling: number, doublingMs: number): boolean {
  return (ceiling * doublingMs) / 1000 < FEW_SENDS_PER_STEP;
}

/** The cut a recount refines. */
export interface CutToRecount {
  /** The learned rate that was refused (`Infinity`: unpaced). */
  readonly current: number;
  /** Whether the ceiling was read in a calm spell (no recent pause). */
  readonly calm: boolean;
  /** The lowest ceiling the cut may leave. */
  readonly floor: number;
  /** The span a refused probe is judged by, ms; undefined when it was no probe. */
  readonly probeSpanMs: number | undefined;
  /** Whether its spacing may raise the ceiling: a refusal-free held rate's probe, or a `burstless` guess's. */
  readonly proven?: boolean;
  /**
   * Whether that probe found the ceiling where it was: it keeps it, and only
   * its spacing is read (see {@link Recount.spacingOnly}).
   */
  readonly confirmed?: boolean;
  /** Whether the refused probe climbed from a ceiling guessed from nothing (see `RateParts.guess`). */
  readonly fromGuess?: boolean;
  /** The measured ceiling a refused probe climbed from (see `RefutedRaise`). */
  readonly probedFrom?: number;
}

/**
 * The ceiling a cut set, recounted by send time once the outcomes it needs
 * are in (a refusal arrives before the acceptances of the requests sent just
 * ahead of it): the first ceiling (once; it may only rise), a refused probe's
 * (the sends of its span), or, soon after a pause, when the refusal asked for
 * another, what the server granted between the two.
 */
export class CeilingRecounts {
  /** The recount waiting for its outcomes. */
  #pending: Recount | undefined;
  /** The pending recount's span, counted as its acceptances come in (not for a count since the start). */
  #tally: SpanTally | undefined;
  /** Whether the first ceiling was counted (once). */
  #firstCounted = false;
  /** Whether the ceiling {@link CeilingRecounts.due} last returned was a first count counted whole. */
  #countedWhole = false;
  /** A ceiling raised by a refused probe's spacing, on trial. */
  readonly trial = new SpacingTrial();
  /** A raise of the held rate, on trial until the next cut. */
  readonly raise = new RaiseTrial();
  /** A refused probe's raise on trial, or refuted (see {@link RefutedRaise}). */
  readonly refutedRaise = new RefutedRaise();

  /**
   * Whether the ceiling {@link CeilingRecounts.due} last returned was a first
   * count over its whole span, charged to the probe budget as a probe's reading
   * (see `firstCountCharge`).
   */
  get countedWhole(): boolean {
    return this.#countedWhole;
  }

  /** Marks the first ceiling as counted (a restored scope had one). */
  set firstCounted(counted: boolean) {
    this.#firstCounted = counted;
  }

  /**
   * Plans the recount of the ceiling `cut` set on the refusal `sample`
   * (`minPauseMs`: the shortest pause); whether one is pending.
   */
  plan(sample: Sample, cut: CutToRecount, meter: RateMeter, minPauseMs: number): boolean {
    const bounds = { min: cut.floor, max: cut.current };
    const spacingOnly = cut.confirmed === true;
    if (spacingOnly && cut.probeSpanMs === undefined) return false;
    // A spacing is a grant whatever paused before it: only a count needs a calm span.
    const recount =
      cut.probeSpanMs !== undefined && (cut.calm || spacingOnly)
        ? {
            ...probeRecount(sample, cut.probeSpanMs, bounds, meter.rttMs, cut.proven, spacingOnly),
            pausedProbe: cut.fromGuess !== true && !namesNoPause(sample),
          }
        : this.#afterCut(sample, cut, meter, minPauseMs);
    if (recount === undefined) return false;
    this.#pending = {
      ...recount,
      min: Math.max(recount.min, cut.floor),
      refusedSentAt: sample.sentAt,
      ...(cut.probedFrom === undefined ? {} : { probedFrom: cut.probedFrom }),
    };
    const { from, to } = recount;
    this.#tally =
      recount.fromStart === true
        ? undefined
        : new SpanTally(meter.acceptedSentIn(from, to), from, to);
    return true;
  }

  /** Counts an acceptance sent at `sentAt` toward the pending recount (see {@link SpanTally}). */
  accepted(sentAt: number): void {
    this.#tally?.accepted(sentAt);
  }

  /** Drops the pending recount (its reading is known to be too high: see `ClosureSpan`). */
  forget(): void {
    this.#pending = undefined;
    this.#tally = undefined;
  }

  /**
   * At `at`, the recounted ceiling once the pending recount's outcomes are in
   * (a first count bounded by a grant, also once nothing is in flight:
   * `drained`), or undefined to keep `ceiling`. A first ceiling counted over
   * its whole span is as good as a probe's reading: `bill` is charged the
   * pause its refusal asked for, like one, up to a second where it counted
   * many sends (see `firstCountCharge`). A refused probe's count is of sends
   * mostly accepted, at the rates its curve climbed through: the capacity lies
   * between it and the rate it was sending at when refused. A count more than
   * {@link WIDE} below that rate (its accepted sends in the last
   * {@link END_SHARE} of the span: a probe's pace, not what the sends kept
   * up with, may be far higher), of a probe whose refusal brought a pause (see
   * `namesNoPause`), is told to `bill` ({@link RecountBill.owe}): the
   * prober's next probe may be part of this measurement. Where refusals name
   * no pause the budget's next probe comes within seconds; a probe from a
   * guess is judged by its last second already (see `refusedProbeSpan`); a
   * coarse count (fewer than {@link COARSE_COUNT} sends) reads below its
   * probe's rate refused whatever the capacity did (a send more or less is a
   * fifth of it).
   */
  due(
    at: number,
    meter: RateMeter,
    ceiling: number,
    bill: RecountBill,
    drained = false,
  ): number | undefined {
    const recount = this.#pending;
    if (recount === undefined || (at < recount.at && !earlyCount(recount, drained)))
      return undefined;
    // Counted now, before later sends crowd these out of the kept send times; bounded once the grant is in.
    const count = recount.counted ?? this.#countOf(recount, meter);
    const grant = recount.grant;
    if (grant !== undefined && at < grant.at && !drained && count !== undefined) {
      recount.counted = count;
      return undefined;
    }
    this.#pending = undefined;
    this.#tally = undefined;
    if (ceiling === 0 || count === undefined) return undefined;
    // A slow start refused for a clump its limit's burst could not hold sent below that limit's
    // rate: its count, whole or not, is a lower bound, neither charged nor a reading.
    const whole =
      (recount.raiseOnly || recount.charged === true) &&
      count.fromMs <= recount.from &&
      !meter.firstRefusal.grantedAfter;
    this.#countedWhole = whole;
    if (whole) {
      const askedMs = recount.pauseMs ?? meter.pauses.lengthMs;
      bill.chargeFirstCount(firstCountCharge(askedMs, count.count));
    }
    const coarse = count.count < COARSE_COUNT;
    if (recount.spacingOnly === true)
      return coarse ? this.#spaced(recount, meter, ceiling) : undefined;
    let counted = recountedCeiling(recount, count, ceiling);
    if (counted !== undefined && grant !== undefined)
      counted = boundedByGrant(counted, grant.window, meter, ceiling);
    if (whole && counted !== undefined && counted > ceiling)
      this.raise.raised({ ceiling, proven: false });
    let read = (coarse ? this.#spaced(recount, meter, counted ?? ceiling) : undefined) ?? counted;
    if (read !== undefined && recount.refusedSentAt !== undefined)
      read = Math.min(read, meter.remembered(recount.refusedSentAt));
    if (read !== undefined && recount.probedFrom !== undefined) {
      read = Math.max(recount.min, this.refutedRaise.worth(read));
      this.refutedRaise.raised(recount.probedFrom, read, at);
    }
    const reading = read ?? ceiling;
    if (!coarse && recount.pausedProbe === true && reading * (1 + WIDE) < endRate(recount, meter)) {
      bill.owe(reading);
    }
    return read;
  }

  /** The accepted sends `recount` counts: the kept send times', or the tally's where those lost part of the span. */
  #countOf(recount: Recount, meter: RateMeter): { count: number; fromMs: number } | undefined {
    const kept = countOf(recount, meter);
    return this.#tally === undefined ? kept : this.#tally.reading(kept);
  }

  /**
   * The fastest spacing of a refused probe's accepted sends, when it may
   * raise the ceiling (see {@link SpacingTrial}) and reads above `counted`
   * (at most the rate refused); undefined otherwise.
   */
  #spaced(recount: Recount, meter: RateMeter, counted: number): number | undefined {
    if (recount.spaced !== true || !this.trial.trusted) return undefined;
    const fastest = meter.fastestAcceptedIn(recount.from, recount.to) ?? 0;
    const spaced = Math.min(recount.max, fastest);
    if (!(spaced > counted)) return undefined;
    this.trial.raised(counted);
    return spaced;
  }

  /** The first ceiling's recount (once), or a grant recount soon after a pause; undefined when none. */
  #afterCut(
    sample: Sample,
    cut: CutToRecount,
    meter: RateMeter,
    minPauseMs: number,
  ): Recount | undefined {
    if (cut.current === Infinity) {
      if (this.#firstCounted) return undefined;
      this.#firstCounted = true;
      const first = meter.refutedTrial ?? sample;
      const asked = first.signal.retryAfterMs ?? (isRefusal(first) ? FIRST_UNHINTED_PAUSE_MS : 0);
      const pausedMs = meter.pauses.within(first.sentAt - FIRST_RECOUNT_SPAN_MS, first.sentAt);
      const recount = inFirstSecond(
        firstCeilingRecount(first, pausedMs, meter.rttMs),
        first,
        meter.startedAt,
      );
      // A refuted trial's count is due once its sends are answered (half again the mean round
      // trip), before the sends since its pause crowd them out of the kept send times.
      const answered = first.sentAt + ANSWERED_RTTS * meter.rttMs;
      const at = first === sample ? recount.at : Math.max(sample.at, answered);
      const grant = first === sample ? undefined : grantSincePause(sample, meter, minPauseMs);
      const bound = grant === undefined ? {} : { grant };
      return {
        ...recount,
        at: Math.min(recount.at, at),
        pauseMs: Math.max(minPauseMs, asked),
        ...bound,
      };
    }
    const paused = !cut.calm && sample.signal.retryAfterMs !== undefined;
    const window = paused ? meter.pauses.grantWindow(sample) : undefined;
    return window && grantRecount(sample, window, cut.current, meter.rttMs);
  }
}

/**
 * Where a cap trial was refuted by the refusal `sample`, sent after the
 * trial's pause: the sends the server granted since that pause (see
 * `LatestPause.grantWindow`), up to the refusal's arrival rather than its
 * send, which bound the first count (see `boundedByGrant`), and when they
 * are in — once answered (half again the mean round trip after the refused
 * send) or as sending resumes after the refusal's own pause, whichever is
 * sooner. The burst on resuming sends many at once: a few ms of timing noise
 * between sending and arriving let some sent after the refused one arrive
 * first and be granted: counted to the refused send a 1 s window's grant read
 * up to a tenth low, which bounded nothing where that fell below the slow
 * start's reading and held the rate a tenth low where it did not.
 */
function grantSincePause(
  sample: Sample,
  meter: RateMeter,
  minPauseMs: number,
): { window: GrantWindow; at: number } | undefined {
  const sent = meter.pauses.grantWindow(sample);
  if (sent === undefined || sample.sentAt < meter.pauses.end) return undefined;
  const window = { ...sent, to: sample.at, spanMs: Math.max(sent.spanMs, sample.at - sent.from) };
  const answered = sample.sentAt + ANSWERED_RTTS * meter.rttMs;
  const resumes = sample.at + Math.max(minPauseMs, sample.signal.retryAfterMs ?? 0);
  return { window, at: Math.min(answered, resumes) };
}

/**
 * The rate at which a refused probe's accepted sends went in the last
 * {@link END_SHARE} of the `recount`'s span, requests/s; 0 when the kept
 * sends do not reach back that far.
 */
function endRate(recount: Recount, meter: RateMeter): number {
  const endMs = recount.spanMs * END_SHARE;
  const end = meter.acceptedSentIn(recount.to - endMs, recount.to);
  if (end === undefined || end.fromMs > recount.to - endMs) return 0;
  return (end.count * 1000) / endMs;
}
