import { DEEPEST_CUT } from './rate-meter.js';

/** A ceiling within this share of a refuted narrowing's is the same ceiling. */
const SAME = 0.05;

/** Where a raise of the held rate started. */
export interface RaiseBase {
  /** The ceiling, requests/s. */
  readonly ceiling: number;
  /** The margin, when the raise moved it (else it stays). */
  readonly margin?: number;
  /** Whether the rate held there drew no refusal (the budget's probes, not an owed one, move on from it). */
  readonly proven: boolean;
}

/**
 * A raise of the held rate that no refusal-free spell has proven, on trial
 * until the next cut: the first count's (a second of unpaced slow start, which
 * on a fixed window straddles the window's edge and counts part of two grants),
 * or a probe's that confirmed the ceiling and narrowed the margin (a ceiling
 * recounted over more than a fixed window's period read a window's grant and
 * part of the next one; held a little closer, the rate crosses the capacity).
 * Refused at the held rate with a reading that is only a bound — the grant per
 * a pause longer than the window, no more than the deepest cut — the raise, not
 * the capacity, is what the refusal shows: the cut returns to where the raise
 * started instead of halving (and under that ceiling, the margin narrows no
 * further than it started again). A refusal that reads the capacity is a cut
 * like any other: the capacity may have fallen. Not saved.
 */
export class RaiseTrial {
  /** Where the raise on trial started; undefined when none is on trial. */
  #base: RaiseBase | undefined;
  /** The ceiling and margin a refuted narrowing returned to: below that margin, the hold crossed it. */
  #least: { ceiling: number; margin: number } | undefined;

  /** The narrowest margin a probe's confirmation may leave under `ceiling` (0: any). */
  leastMargin(ceiling: number): number {
    const least = this.#least;
    if (least === undefined || Math.abs(ceiling - least.ceiling) > SAME * least.ceiling) return 0;
    return least.margin;
  }

  /** The held rate was raised from `base`. */
  raised(base: RaiseBase): void {
    this.#base = base;
  }

  /**
   * At a cut (it ends the trial): where the raise started, when the refusal
   * came at the held rate `current` (not `probing`), above the rate held
   * there, and read no more than the deepest cut (`measured`); else undefined.
   */
  refuted(measured: number | undefined, current: number, probing: boolean): RaiseBase | undefined {
    const base = this.#base;
    this.#base = undefined;
    if (base === undefined || probing || measured === undefined) return undefined;
    const held = base.ceiling * (1 - (base.margin ?? 0));
    if (!(held < current) || measured > current * DEEPEST_CUT) return undefined;
    if (base.margin !== undefined) this.#least = { ceiling: base.ceiling, margin: base.margin };
    return base;
  }
}
