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
import { isRefusal, type Sample } from './sample.js';
import { SpacingTrial } from './spacing-trial.js';

/** A refused probe's count of fewer accepted sends than this reads its climb more than the capacity: its spacing may raise it. */
const COARSE_COUNT = 20;
/** A refuted cap trial's sends are taken as answered this many mean round trips after the last. */
const ANSWERED_RTTS = 1.5;

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
  /** Whether the refused probe started from a refusal-free held rate (its spacing may raise the ceiling). */
  readonly proven?: boolean;
  /**
   * Whether that probe found the ceiling where it was: it keeps it, and only
   * its spacing is read (see {@link Recount.spacingOnly}).
   */
  readonly confirmed?: boolean;
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
  /** Whether the first ceiling was counted (once). */
  #firstCounted = false;
  /** A ceiling raised by a refused probe's spacing, on trial. */
  readonly trial = new SpacingTrial();

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
        ? probeRecount(sample, cut.probeSpanMs, bounds, meter.rttMs, cut.proven, spacingOnly)
        : this.#afterCut(sample, cut, meter, minPauseMs);
    if (recount === undefined) return false;
    this.#pending = { ...recount, min: Math.max(recount.min, cut.floor) };
    return true;
  }

  /**
   * At `at`, the recounted ceiling once the pending recount's outcomes are in,
   * or undefined to keep `ceiling`. A first ceiling counted over its whole
   * span is as good as a probe's reading: `onFirstCount` is told the pause its
   * refusal asked for, to charge it like one.
   */
  due(
    at: number,
    meter: RateMeter,
    ceiling: number,
    onFirstCount: (pauseMs: number) => void,
  ): number | undefined {
    const recount = this.#pending;
    if (recount === undefined || at < recount.at) return undefined;
    this.#pending = undefined;
    const count = meter.acceptedSentIn(recount.from, recount.to);
    if (ceiling === 0 || count === undefined) return undefined;
    if (recount.raiseOnly && count.fromMs <= recount.from) {
      onFirstCount(recount.pauseMs ?? meter.pauses.lengthMs);
    }
    const coarse = count.count < COARSE_COUNT;
    if (recount.spacingOnly === true)
      return coarse ? this.#spaced(recount, meter, ceiling) : undefined;
    const counted = recountedCeiling(recount, count, ceiling);
    return (coarse ? this.#spaced(recount, meter, counted ?? ceiling) : undefined) ?? counted;
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
      const recount = firstCeilingRecount(first, pausedMs, meter.rttMs);
      // A refuted trial's count is due once its sends are answered (half again the mean round
      // trip), before the sends since its pause crowd them out of the kept send times.
      const answered = first.sentAt + ANSWERED_RTTS * meter.rttMs;
      const at = first === sample ? recount.at : Math.max(sample.at, answered);
      return { ...recount, at: Math.min(recount.at, at), pauseMs: Math.max(minPauseMs, asked) };
    }
    const paused = !cut.calm && sample.signal.retryAfterMs !== undefined;
    const window = paused ? meter.pauses.grantWindow(sample) : undefined;
    return window && grantRecount(sample, window, cut.current, meter.rttMs);
  }
}
