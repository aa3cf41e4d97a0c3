/**
 * A ceiling raised to the spacing of a refused probe's accepted sends, on
 * trial until the rate held under it proves refusal-free. On a limit that
 * lets one request through at a time (a burst of one), each accepted send
 * came at least one interval of the capacity after the one before, so the
 * fastest spacing the probe was granted is a lower bound on the capacity —
 * where a count over the probe's climb, a few sends at a slow scope, reads
 * the climb, not the capacity. A limit with a burst (or a window) grants
 * closer spacings than it sustains: the raised rate is refused as held, and
 * the scope goes back to the ceiling the probe's count made and reads no
 * spacing again. Not saved: it is learned again in one refused probe.
 */
export class SpacingTrial {
  /** The ceiling the raise on trial started from; undefined when none is on trial. */
  #base: number | undefined;
  /** Whether a raise was refused as held: the spacing is not read again. */
  #refuted = false;

  /** Whether a refused probe's spacing may raise the ceiling. */
  get trusted(): boolean {
    return !this.#refuted;
  }

  /** The ceiling `base` (the probe's count) was raised by the spacing; an older base on trial stays. */
  raised(base: number): void {
    this.#base ??= base;
  }

  /** The rate held since the last refused probe drew no refusal: the raise stands. */
  passed(): void {
    this.#base = undefined;
  }

  /**
   * A refusal at the held rate: the ceiling the raise on trial started from
   * (and the spacing is not read again), or undefined when none is on trial.
   */
  refuted(): number | undefined {
    const base = this.#base;
    if (base === undefined) return undefined;
    this.#base = undefined;
    this.#refuted = true;
    return base;
  }
}
