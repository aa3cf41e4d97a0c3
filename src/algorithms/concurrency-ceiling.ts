import { numberOption, savedRecord } from '../options.js';
import type { ClockReading } from './clock-reading.js';
import { ProbeBudget, type ProbeBudgetState } from './probe-budget.js';
import { readProbeBudget } from './probe-budget-state.js';
import type { Sample } from './sample.js';

/**
 * A cap on trial is checked once it was held this long, ms, after the pause
 * its refusal asked for: a window that the burst on resuming overruns refuses
 * at no more in flight than the cap first (which refutes it for free), where a
 * check refused with it would cost another pause.
 */
const TRIAL_HOLD_MS = 1000;

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
 * round trips); a refusal sets it to one less than it was refused at, and
 * is charged to the budget as the probe's price only when refused past where
 * the probe began: one at no more in flight than that shows a capacity that
 * fell (a rate limit read as a cap, say), not what looking costs. A probe
 * refused one past where it began found the cap where it was, and the next
 * waits longer (the budget's patience, as for a rate probe that confirms its
 * ceiling, up to four times): a stable cap is looked at a quarter as often.
 */
export class ConcurrencyCeiling {
  readonly #refusedShare: number;
  readonly #pausedShare: number;
  #ceiling = 0;
  /** How far past the ceiling the probe tries; 0 while holding. */
  #step = 0;
  /**
   * The ceiling the current probe began from (its doubling raises the
   * ceiling, not this); 0 before any probe, and after a restore, which
   * charges every refusal as before. Not saved.
   */
  #probeFrom = 0;
  #budget: ProbeBudget | undefined;
  /**
   * The ceiling came from a cap on trial (see {@link Sample.capTrial}): the
   * limit and threshold it cut, restored if the trial fails, and from when a
   * success's send opens its check. Not saved.
   */
  #trial: { limit: number; threshold: number; checkFrom: number } | undefined;

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
    } else if (
      this.#step === 0 &&
      budget.allows() &&
      sample.sentAt >= (this.#trial?.checkFrom ?? Number.NEGATIVE_INFINITY)
    ) {
      this.#step = 1;
      this.#probeFrom = this.#ceiling;
    }
  }

  /**
   * Learns from a refusal for concurrency: the server took one less than the
   * refused request made (what was accepted lags a round trip behind in a
   * slow start, so it would read half the cap). A cap on trial starts with a
   * probe's worth of credit, so it is checked (one past it) once held for
   * {@link TRIAL_HOLD_MS} — or, where its refusal asked for a longer pause,
   * once the budget has earned the rest of that pause (see
   * {@link checkPauseMs}); `cut`: the limit and slow-start threshold before
   * the refusal, restored if the trial fails.
   */
  onRefused(sample: Sample, min: number, cut: { limit: number; threshold: number }): void {
    // Under timing noise a cap on trial may be found one lower (see `Sample.capTrial`).
    const lowers = this.#trial !== undefined && sample.capTrial === 'lowered';
    this.#ceiling = Math.max(min, lowers ? this.#ceiling - 1 : sample.inflight - 1);
    // Refused at no more than the probe began from: the capacity fell, which is not the probe's price.
    if (sample.inflight <= this.#probeFrom) this.#step = 0;
    const tentative = sample.capTrial === 'begins';
    this.#budget ??= new ProbeBudget(
      this.#refusedShare,
      this.#pausedShare,
      sample.at,
      tentative ? 1 : 0,
      tentative ? checkPauseMs(sample) : 0,
    );
    if (this.#step > 0) {
      // Refused one past where it began: the probe found the cap where it was.
      const confirmed = this.#ceiling === this.#probeFrom;
      this.#budget.charge({ refusals: 1, pauseMs: sample.signal.retryAfterMs ?? 0, confirmed });
      this.#step = 0;
    }
    const checkFrom = sample.at + (sample.signal.retryAfterMs ?? 0) + TRIAL_HOLD_MS;
    if (tentative) this.#trial = { ...cut, checkFrom };
    else if (!lowers) this.#trial = undefined;
  }

  /**
   * Whether `sample` refutes a cap on trial: a success past it (but one the
   * trial holds timing noise's), or a refusal that refutes it (see
   * {@link Sample.capTrial}). Then the limit and threshold it cut are
   * returned, for the caller to restore and forget this ceiling.
   */
  refutedBy(sample: Sample): { limit: number; threshold: number } | undefined {
    const trial = this.#trial;
    if (trial === undefined) return undefined;
    const beyond =
      sample.signal.kind === 'ok' && sample.inflight > this.#ceiling && sample.capTrial !== 'held';
    return beyond || sample.capTrial === 'refuted' ? trial : undefined;
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

/** Reads saved concurrency-ceiling state, validating each field; undefined when none was saved. */
export function readCeilingState(
  saved: unknown,
  owner: string,
): ConcurrencyCeilingState | undefined {
  const record = savedRecord(owner, 'ceiling', saved);
  if (record === undefined) return undefined;
  const n = (name: 'ceiling' | 'probeStep') =>
    numberOption(`${owner} ceiling`, name, record[name], 0, { min: 0 });
  const state: ConcurrencyCeilingState = {
    ceiling: n('ceiling'),
    probeStep: n('probeStep'),
  };
  const budget = readProbeBudget(record, `${owner} ceiling`);
  if (budget !== undefined) state.budget = budget;
  return state;
}

/**
 * The pause a cap on trial's check is expected to cost, ms: the pause its
 * refusal asked for (a cap answers its check as it answered the slow start),
 * beyond the {@link TRIAL_HOLD_MS} the trial holds at the cap anyway. A
 * constant `Retry-After` of seconds makes a refused check cost as much as the
 * first refusal did, and a cap met in the slow start is usually exact (one
 * past it is refused): the check then waits for the budget (`pausedShare` of
 * the time) like any probe, while a rate limit the cap was not refutes it for
 * free as before, with a refusal at no more in flight.
 */
function checkPauseMs(sample: Sample): number {
  return Math.max(0, (sample.signal.retryAfterMs ?? 0) - TRIAL_HOLD_MS);
}
