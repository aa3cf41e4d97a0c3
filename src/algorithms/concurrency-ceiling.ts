import type { ClockReading } from './clock-reading.js';
import { ProbeBudget, type ProbeBudgetState } from './probe-budget.js';
import type { Sample } from './sample.js';

/** Serialisable state of a {@link ConcurrencyCeiling}. */
export type ConcurrencyCeilingState = {
  /** The most in flight the server is known to accept; 0 when it never refused a concurrency. */
  ceiling: number;
  /** How far past the ceiling a probe tries now; 0 while holding. */
  probeStep: number;
  budget?: ProbeBudgetState;
};

/**
 * What a concurrency cap showed: the most requests in flight the server
 * accepted before refusing more, and budgeted probing past it. Below the
 * ceiling the limit grows freely; at it, one more is tried only when the
 * {@link ProbeBudget} can pay for what such a probe costs (a refusal, and
 * the pause its `Retry-After` asks for), so that finding the cap again costs
 * about `refusedShare` of the requests and `pausedShare` of the time. A probe
 * accepted past the ceiling raises it and tries twice as far next (a ceiling
 * learned too low, say from a slow start's first refusal, is left in a few
 * round trips); a refusal sets it to one less than it was refused at.
 */
export class ConcurrencyCeiling {
  readonly #refusedShare: number;
  readonly #pausedShare: number;
  #ceiling = 0;
  /** How far past the ceiling the probe tries; 0 while holding. */
  #step = 0;
  #budget: ProbeBudget | undefined;

  constructor(refusedShare: number, pausedShare: number) {
    this.#refusedShare = refusedShare;
    this.#pausedShare = pausedShare;
  }

  /** The most the limit may be now: unbounded before a refusal, one past the ceiling while probing. */
  get cap(): number {
    return this.#ceiling === 0 ? Infinity : this.#ceiling + this.#step;
  }

  /** Learns from a success: a probe accepted raises the ceiling; the budget earns its share. */
  onAccepted(sample: Sample): void {
    const budget = this.#budget;
    if (budget === undefined) return;
    budget.onRequest();
    budget.onTime(sample.at);
    if (this.#step > 0 && sample.inflight > this.#ceiling) {
      // Accepted past the ceiling: it was too low; the next try goes twice as far.
      this.#ceiling = sample.inflight;
      this.#step *= 2;
    } else if (this.#step === 0 && budget.allows()) this.#step = 1;
  }

  /**
   * Learns from a refusal for concurrency: the server took one less than the
   * refused request made (what was accepted lags a round trip behind in a
   * slow start, so it would read half the cap).
   */
  onRefused(sample: Sample, min: number): void {
    this.#ceiling = Math.max(min, sample.inflight - 1);
    this.#budget ??= new ProbeBudget(this.#refusedShare, this.#pausedShare, sample.at);
    if (this.#step > 0) {
      this.#budget.charge({ refusals: 1, pauseMs: sample.signal.retryAfterMs ?? 0 });
      this.#step = 0;
    }
  }

  /** Plain state, times as wall-clock epoch ms. */
  snapshot(clocks: ClockReading): ConcurrencyCeilingState {
    const state: ConcurrencyCeilingState = {
      ceiling: this.#ceiling,
      probeStep: this.#step,
    };
    if (this.#budget !== undefined) state.budget = this.#budget.snapshot(clocks);
    return state;
  }

  /** Restores state from {@link ConcurrencyCeiling.snapshot}, already validated. */
  restore(state: ConcurrencyCeilingState, clocks: ClockReading): void {
    this.#ceiling = state.ceiling;
    this.#step = state.probeStep;
    if (state.budget === undefined) return;
    this.#budget = new ProbeBudget(this.#refusedShare, this.#pausedShare, 0);
    this.#budget.restore(state.budget, clocks);
  }
}
