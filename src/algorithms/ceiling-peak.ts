/** A ceiling below this share of the recent peak is a fallen one. */
const FALLEN = 0.75;
/** Half-life of the peak's memory, ms: a capacity that fell for good stops being watched. */
const PEAK_HALF_LIFE_MS = 300_000;
/** Probes in a row that must find a fallen ceiling where it was before it stops being one. */
const CONFIRMATIONS = 2;

/**
 * The highest learned ceiling lately, against which a ceiling is judged
 * fallen: a capacity that fell may come back, so it is probed eagerly (see
 * `Prober`). Its memory halves every {@link PEAK_HALF_LIFE_MS}. Not saved.
 */
export class CeilingPeak {
  #value = 0;
  #at = 0;
  /** Probes in a row that found the ceiling where it was. */
  #kept = 0;

  /** Whether `ceiling` is well below the peak at `at`; a ceiling at or above it is the new peak. */
  fallen(at: number, ceiling: number): boolean {
    const peak = this.#value * 2 ** (-Math.max(0, at - this.#at) / PEAK_HALF_LIFE_MS);
    if (ceiling >= peak) this.#set(at, ceiling);
    return ceiling < FALLEN * peak;
  }

  /**
   * A probe's event ended with the ceiling `kept` where it started, or not
   * (the `Prober` counts only scopes the probe budget's earning floor tops up:
   * there each eager probe's refusal costs more than the budget's share).
   * Found where it was by {@link CONFIRMATIONS} probes in a row, `ceiling` is
   * no longer a fallen one: the capacity did not come back, and the peak it
   * was judged fallen from (often a cold start's over-read) comes down to it.
   * One probe is not enough: an early one can find a cold start's under-read
   * where it was. A capacity that rises later is found by the budget's
   * regular probes, as any rise.
   */
  onProbe(at: number, ceiling: number, kept: boolean): void {
    this.#kept = kept ? this.#kept + 1 : 0;
    if (this.#kept >= CONFIRMATIONS && ceiling > 0) this.#set(at, ceiling);
  }

  #set(at: number, ceiling: number): void {
    this.#value = ceiling;
    this.#at = at;
  }
}
