import { NEVER } from './congestion.js';

/**
 * A count of events in which each event weighs e^(−age/τ): a sliding average
 * in two numbers instead of a ring of buckets, so that a hundred thousand
 * scopes stay cheap. With τ = W/2 its noise and its lag match a box window
 * of W; {@link DecayingCount.perSecond} corrects the bias of a short history.
 */
export class DecayingCount {
  /** The decayed count as of {@link DecayingCount.at}. */
  sum = 0;
  /** Time of the last update, ms ({@link NEVER} before the first). */
  at = NEVER;
  #tauMs: number;

  /** @param tauMs the time constant τ, ms (> 0). */
  constructor(tauMs: number) {
    this.#tauMs = tauMs;
  }

  /** The time constant τ, ms; a new one applies from the last update on. */
  get tauMs(): number {
    return this.#tauMs;
  }

  set tauMs(tauMs: number) {
    this.#tauMs = tauMs;
  }

  /** Adds `amount` events at `at` (an earlier `at` than the last update counts as the last). */
  add(at: number, amount = 1): void {
    this.#decayTo(at);
    this.sum += amount;
  }

  /** Adds events spread evenly over [from, to] at `perSecond` (the exact decayed integral). */
  spread(from: number, to: number, perSecond: number): void {
    this.#decayTo(to);
    const span = Math.max(0, to - Math.max(from, to - 50 * this.#tauMs));
    this.sum += (perSecond / 1000) * this.#tauMs * (1 - Math.exp(-span / this.#tauMs));
  }

  /**
   * Events per second at `at`, averaged over the history since `since` (the
   * weights of an infinite history are rescaled to those of the real one).
   */
  perSecond(at: number, since: number): number {
    const history = at - since;
    const decayed = this.sum * Math.exp(-Math.max(0, at - this.at) / this.#tauMs);
    const weight = this.#tauMs * (1 - Math.exp(-history / this.#tauMs));
    return weight > 0 ? (decayed * 1000) / weight : 0;
  }

  #decayTo(at: number): void {
    if (at > this.at) {
      this.sum *= Math.exp(-(at - this.at) / this.#tauMs);
      this.at = at;
    }
  }
}
