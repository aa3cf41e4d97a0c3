/** Weight of each outcome in the sustained share of bare 5xx (about the last 100 outcomes). */
const SLOW = 1 / 100;
/** A sustained share this high (5 of the last 100 outcomes) is tried as a refusal. */
const SUSTAINED = 0.05;
/** Outcomes after a trial that tell whether it lowered the share. */
const CHECK_OUTCOMES = 100;
/** A trial that left at least this share of the errors found noise, not a limit. */
const UNMOVED = 0.75;

/** A trial being judged: the share that set it off, and the outcomes since. */
interface Trial {
  readonly share: number;
  seen: number;
  bare: number;
}

/**
 * Tells a server that limits with bare 5xx from an origin's noise by trying
 * it. Bare 502/503/504 that stay above a twentieth of the outcomes at a held
 * rate are either refusals of a rate held just above the capacity (they stop
 * once the rate falls) or errors that come whatever the rate. The next bare
 * 5xx is taken as a refusal — one cut — and the outcomes at the rate held
 * after it judge the trial: if the share of bare 5xx did not fall by a
 * quarter, it is the origin's noise, and only a share twice as high is tried
 * again. Only outcomes at a held rate count, from {@link CHECK_OUTCOMES}
 * after the last surge: a slow start's overshoot, a probe's refusals and a
 * surge are no noise, and have their own rules.
 */
export class BareErrorCheck {
  #sustained = 0;
  /** Held outcomes since the last surge, up to {@link CHECK_OUTCOMES}: no trial before as many. */
  #calm = 0;
  /** The share of bare 5xx known to come whatever the rate. */
  #noise = 0;
  #trial: Trial | undefined;

  /**
   * Notes one outcome (`bare`: a bare 5xx; `held`: sent at a held rate, neither
   * unpaced nor probing); true when this one is to be tried as a refusal.
   */
  observe(bare: boolean, held: boolean): boolean {
    if (!held) return false;
    this.#sustained += ((bare ? 1 : 0) - this.#sustained) * SLOW;
    this.#calm = Math.min(this.#calm + 1, CHECK_OUTCOMES);
    const trial = this.#trial;
    if (trial !== undefined) {
      trial.seen++;
      if (bare) trial.bare++;
      if (trial.seen >= CHECK_OUTCOMES) this.#judge(trial);
      return false;
    }
    if (!bare || this.#calm < CHECK_OUTCOMES) return false;
    if (this.#sustained < Math.max(SUSTAINED, 2 * this.#noise)) return false;
    this.#trial = { share: this.#sustained, seen: 0, bare: 0 };
    return true;
  }

  /**
   * Notes a surge of bare 5xx, which cut the rate: the errors before it tell
   * nothing of the rate after it, so none is tried until as many outcomes
   * have been held since.
   */
  onSurge(): void {
    this.#calm = 0;
  }

  /** Ends a trial: errors that did not fall with the rate are noise. */
  #judge(trial: Trial): void {
    const after = trial.bare / trial.seen;
    if (after >= UNMOVED * trial.share) this.#noise = Math.max(this.#noise, trial.share, after);
    this.#sustained = after;
    this.#trial = undefined;
  }
}
