/** A share of bare 5xx an origin may fail with before any of its noise is learned. */
const TOLERATED = 0.01;
/** A share of bare 5xx that is a limit's refusals, while no noise is known. */
const LIMIT_SHARE = 0.04;
/** A share this many times the noise is a limit's refusals. */
const LIMIT_RATIO = 2;
/** Evidence (log-likelihood ratio, limit against noise) that sets off a trial. */
const DECISIVE = 4;
/** A run of held outcomes without a bare 5xx this many times the mean gap of the noise found (a chance of e^-7 under it) forgets it. */
const REFUTED = 7;
/** A trial that found noise raises the share taken for noise this many times (or to the share it found). */
const ESCALATION = 2;
/** Outcomes after a trial that tell whether it lowered the share, and held after a surge before any trial. */
const CHECK_OUTCOMES = 100;
/** A trial that left errors at least at this part of the share taken for noise found noise, not a limit. */
const UNMOVED = 0.75;

/** A trial being judged: the held outcomes since it, and the bare 5xx among them. */
interface Trial {
  seen: number;
  bare: number;
}

/**
 * Tells a server that limits with bare 5xx from an origin's noise by trying
 * it. Bare 502/503/504 at a held rate are either refusals of a rate held just
 * above the capacity (they come in runs at one rate and stop once it falls)
 * or errors that come whatever the rate. Each held outcome is weighed as
 * evidence between the two (a CUSUM test of the noise share, at least
 * {@link TOLERATED}, against a limit's, {@link LIMIT_SHARE} or twice the
 * noise), so a limit refusing a twenty-fifth of a held rate is found after a
 * handful of its refusals, whatever the rate, and an origin failing at its
 * usual share seldom. When the evidence is decisive, that bare 5xx is taken
 * as a refusal — one cut — and the outcomes at the rate held after it judge
 * the trial: errors that did not fall below three quarters of the share taken
 * for noise are noise, and twice that share is taken for noise from then on;
 * errors that fell came with the rate, and so does a noise share that a long
 * run of held outcomes without any refutes: both forget it. Only outcomes at
 * a held rate count, from {@link CHECK_OUTCOMES} after the last surge: a slow
 * start's overshoot, a probe's refusals and a surge are no noise, and have
 * their own rules.
 */
export class BareErrorCheck {
  /** Evidence for a limit over noise in the held outcomes since the last trial (never below 0). */
  #evidence = 0;
  /** Held outcomes since the last bare 5xx. */
  #quiet = 0;
  /** Held outcomes since the last surge, up to {@link CHECK_OUTCOMES}: no trial before as many. */
  #calm = 0;
  /** The share of bare 5xx taken for noise, since a trial found errors that came whatever the rate. */
  #noise = 0;
  /** The share of bare 5xx that trial found: a run of held outcomes without any, long for it, refutes the noise. */
  #found = 0;
  #trial: Trial | undefined;

  /**
   * Notes one outcome (`bare`: a bare 5xx; `held`: sent at a held rate, neither
   * unpaced nor probing); true when this one is to be tried as a refusal.
   */
  observe(bare: boolean, held: boolean): boolean {
    if (!held) return false;
    this.#quiet = bare ? 0 : this.#quiet + 1;
    if (this.#quiet * this.#found >= REFUTED) this.#forget();
    this.#calm = Math.min(this.#calm + 1, CHECK_OUTCOMES);
    const trial = this.#trial;
    if (trial !== undefined) {
      trial.seen++;
      if (bare) trial.bare++;
      if (trial.seen >= CHECK_OUTCOMES) this.#judge(trial);
      return false;
    }
    this.#evidence = Math.max(0, this.#evidence + this.#weigh(bare));
    if (!bare || this.#calm < CHECK_OUTCOMES || this.#evidence < DECISIVE) return false;
    this.#trial = { seen: 0, bare: 0 };
    return true;
  }

  /**
   * Notes a surge of bare 5xx, which cut the rate: the errors before it tell
   * nothing of the rate after it, so none is tried until as many outcomes
   * have been held since.
   */
  onSurge(): void {
    this.#calm = 0;
    this.#evidence = 0;
  }

  /** Forgets the noise: errors that stopped at a held rate came with it. */
  #forget(): void {
    this.#noise = 0;
    this.#found = 0;
  }

  /** The share of bare 5xx taken for noise: the learned one, at least {@link TOLERATED}. */
  #tolerated(): number {
    return Math.max(TOLERATED, this.#noise);
  }

  /** How much one outcome speaks for a limit rather than noise (a log-likelihood ratio). */
  #weigh(bare: boolean): number {
    const noise = this.#tolerated();
    const limit = Math.min(Math.max(LIMIT_RATIO * noise, LIMIT_SHARE), 0.5);
    return bare ? Math.log(limit / noise) : Math.log((1 - limit) / (1 - noise));
  }

  /** Ends a trial: errors that did not fall with the rate are noise. */
  #judge(trial: Trial): void {
    const after = trial.bare / trial.seen;
    if (after >= UNMOVED * this.#tolerated()) {
      this.#noise = Math.max(ESCALATION * this.#tolerated(), after);
      this.#found = after;
    } else {
      this.#forget();
    }
    this.#evidence = 0;
    this.#trial = undefined;
  }
}
