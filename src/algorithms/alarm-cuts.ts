import { ClearedRestore } from './cleared-restore.js';
import type { RateDecisions } from './rate-decisions.js';
import type { AlarmAction } from './sample.js';

/**
 * The first cut of a latency alarm is a decisive experiment — a quarter of
 * what the server is serving — and later cuts of the same alarm halve.
 */
const FIRST_ALARM_RATIO = 0.25;
const ALARM_RATIO = 0.5;
/**
 * After an alarm proved futile (latency did not follow our rate), the next
 * alarm's first cut is a smaller experiment: the latency is likely not ours
 * again, and each futile experiment costs a slowed spell.
 */
const FIRST_AFTER_FUTILE_RATIO = 0.5;
/** A latency alarm's cut is held this long before probing: long enough for the guard to judge it. */
const ALARM_HOLD_MS = 10_000;

/** A learned ceiling (requests/s) and the margin held below it. */
export interface LearnedCeiling {
  readonly ceiling: number;
  readonly margin: number;
}

/**
 * What a soft-throttling alarm (latency inflating with no error) does to a
 * learned ceiling, remembering what the alarm's cuts replaced so that a futile
 * alarm can put it back.
 */
export class AlarmCuts {
  /** What the current alarm's cuts replaced; undefined outside one. */
  #before: LearnedCeiling | undefined;
  /** Whether the last alarm proved futile (not saved: a restored scope starts decisive). */
  #futile = false;
  /** What a cleared alarm puts back (not saved, as `#futile`). */
  readonly #cleared = new ClearedRestore();

  /** Ends the alarm's memory: a refusal or a recount outranks it, and its cuts are never undone. */
  forget(): void {
    this.#before = undefined;
  }

  /**
   * The ceiling `action` leaves, or undefined to keep `learned`:
   * `slow-down` cuts to a quarter of `served` (what the server is serving, or
   * the learned rate if lower; later cuts of the same alarm, and the first
   * after a futile alarm: half), at least
   * `minRate`; `futile` puts back what was learned before the alarm (slowing
   * down did not help); `cleared` puts back a little under what was served
   * when the alarm fired, held until `holdUntil` ({@link ClearedRestore}), or
   * keeps the lower rate as the ceiling to probe up from.
   */
  #next(
    action: AlarmAction,
    learned: LearnedCeiling,
    served: number,
    { at, holdUntil, minRate }: { at: number; holdUntil: number; minRate: number },
  ): LearnedCeiling | undefined {
    if (action !== 'slow-down') {
      this.#futile = action === 'futile';
      const before = this.#futile ? this.#before : this.#restore(learned, holdUntil);
      this.#before = undefined;
      return before;
    }
    if (served === Infinity) return undefined; // nothing measured yet to cut from
    const first = this.#before === undefined;
    if (first) {
      this.#before = learned;
      this.#cleared.onAlarm(at, served);
    }
    const firstRatio = this.#futile ? FIRST_AFTER_FUTILE_RATIO : FIRST_ALARM_RATIO;
    const ratio = first ? firstRatio : ALARM_RATIO;
    return { ceiling: Math.max(minRate, served * ratio), margin: learned.margin };
  }

  /** The ceiling a cleared alarm restores, or undefined to keep `learned` (none under way: undefined). */
  #restore(learned: LearnedCeiling, holdUntil: number): LearnedCeiling | undefined {
    if (this.#before === undefined) return undefined;
    const ceiling = this.#cleared.restore(learned.ceiling, holdUntil);
    return ceiling === undefined ? undefined : { ceiling, margin: learned.margin };
  }

  /**
   * Applies `action` at `at` to `decisions` (see `#next`): a
   * cut, and a cleared alarm's restore, hold {@link ALARM_HOLD_MS} before
   * probing; a futile alarm's undo may probe at once. Returns whether it cut
   * (the probe stops, the budget opens).
   */
  apply(
    action: AlarmAction,
    at: number,
    decisions: RateDecisions,
    served: number,
    minRate: number,
  ): boolean {
    const learned = { ceiling: decisions.ceiling, margin: decisions.margin };
    const holdUntil = action === 'futile' ? at : at + ALARM_HOLD_MS;
    const next = this.#next(action, learned, served, { at, holdUntil, minRate });
    if (next === undefined) return false;
    decisions.ceiling = next.ceiling;
    decisions.margin = next.margin;
    decisions.holdUntil = holdUntil;
    return action === 'slow-down';
  }
}
