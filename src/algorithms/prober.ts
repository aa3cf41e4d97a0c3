import { CeilingPeak } from './ceiling-peak.js';
import type { ClockReading } from './clock-reading.js';
import { NEVER } from './congestion.js';
import { type CongestionEvent, freshEvent, NO_EVENT, toAftermath } from './congestion-event.js';
import { type HeldRefusal, inAftermath, RefusedProbeMemory } from './probe-aftermath.js';
import { ProbeBudget, type ProbeBudgetState, toppedUp } from './probe-budget.js';

/** A probe whose event ends with the ceiling it started from, or at most this fraction above it, found it where it was. */
const SAME = 0.05;
/**
 * A rate held this long after a refusal at the held rate cut it, without another cut, is
 * refusal-free by evidence, ms: a probe started after it reads against it as against a rate held
 * since a refused probe (see {@link Prober.heldUncut}). Not after a timeout or a reset: a latency
 * that grows with the load is not a limit that refused.
 */
const HELD_PROVEN_MS = 10_000;
/** What a probe budget earns: `refusedShare` of a refusal per request, `pausedShare` of the time. */
export interface ProbeShares {
  readonly refusedShare: number;
  readonly pausedShare: number;
}

/** What a cut tells the prober about the congestion event it starts or continues. */
export interface CutReport extends HeldRefusal {
  /** The rate held before the probe, when it was one. */
  heldBeforeProbe: number;
  /** Whether the refusal found the ceiling where it was. */
  confirmed: boolean;
  /** Whether it was a refusal (not a timeout or a reset). */
  refusal: boolean;
  /** Whether its reading was made in a calm spell at a paced rate (see {@link CeilingPeak.onCut}). */
  calm: boolean;
}

/** When a probe may start: the learned ceiling, the hold and any pause, and whether a quota sets the pace. */
export interface ProbeGate {
  at: number;
  ceiling: number;
  holdUntil: number;
  pausedUntil: number;
  quotaBinds: () => boolean;
}

/**
 * When to probe above a learned ceiling: the probe's clock, the {@link ProbeBudget} that pays for
 * probes, and the congestion event whose cost it is paying. A probe starts once the hold is over,
 * no pause is pending and the budget holds a probe's expected cost (half of it when the ceiling has
 * fallen well below its recent peak: a capacity that fell may come back); after a timeout or a
 * reset it starts for free.
 */
export class Prober {
  /** The adaptive rate's settings (shared by its scopes), read for the budget's shares. */
  readonly #shares: ProbeShares;
  /** Created with the first ceiling: most scopes are never throttled. */
  #budget: ProbeBudget | undefined;
  /** Created with the first refusal, pause or cut; {@link NO_EVENT} reads as it until then. */
  #event: CongestionEvent | undefined;
  /** The highest ceiling lately (see {@link CeilingPeak}); created with the first ceiling. */
  #peak: CeilingPeak | undefined;
  /** Time into the current probe, ms; undefined while holding. */
  #probeMs: number | undefined;
  /** The last refused probe, for its aftermath. */
  readonly #lastProbe = new RefusedProbeMemory();
  /**
   * Whether a cut at a held rate came since the last refused probe (or no probe was refused yet),
   * and the rate it set was not held {@link HELD_PROVEN_MS} before a probe began.
   */
  #heldCut = true;
  /** When the last cut by a refusal came, ms (none yet, or a timeout or reset since: never long ago). */
  #lastRefusalCutAt = Number.POSITIVE_INFINITY;
  /** Whether the next probe is owed (see {@link Prober.owe}). */
  #owed = false;
  /** Whether the current (or last) probe was owed. */
  #owedProbe = false;
  /** When the refused probe whose aftermath last owed the next probe was refused, ms. */
  #aftermathOwedFor = Number.NaN;

  /** @param shares what the budget earns, as in `AdaptiveRateOptions`. */
  constructor(shares: ProbeShares) {
    this.#shares = shares;
  }

  /** Time into the current probe, ms; undefined while holding. */
  get probeMs(): number | undefined {
    return this.#probeMs;
  }

  /** Starts (or restores) a probe `ms` in; undefined holds. */
  setProbe(ms: number | undefined): void {
    this.#probeMs = ms;
  }

  /** Moves the probe's clock on by `ms` (nothing while holding). */
  advance(ms: number): void {
    if (this.#probeMs !== undefined) this.#probeMs += ms;
  }

  /** Earns the budget's share of one request. */
  onRequest(): void {
    this.#budget?.onRequest();
  }

  /** Earns the budget's share of the time up to `at`. */
  onTime(at: number): void {
    this.#budget?.onTime(at);
  }

  /** Opens the budget at the first ceiling, with `probes` worth of credit. */
  openBudget(at: number, probes = 0): void {
    const { refusedShare, pausedShare } = this.#shares;
    this.#budget ??= new ProbeBudget(refusedShare, pausedShare, at, probes);
  }

  /**
   * Takes back the probe's worth {@link Prober.openBudget} gave a guessed ceiling's check, where a
   * cut at the held rate measured the capacity before the check was made.
   */
  forgoGuessCheck(): void {
    this.#budget?.forgo(1);
  }

  /** Pays for a first ceiling counted in full, as good as a probe's reading. */
  chargeFirstCount(pauseMs: number): void {
    this.#budget?.charge({ refusals: 1, pauseMs });
  }

  /** One more refusal in the current event. */
  onRefusal(): void {
    this.#current().refusals++;
  }

  /** Server-requested pause added by the current event, ms. */
  onPause(ms: number): void {
    this.#current().pauseMs += ms;
  }

  /**
   * A cut: a refusal at a held rate in a probe's aftermath continues its event; anything else
   * settles the probe's bill and starts a new event. The cut's own refusal is counted here, in the
   * event it continues or begins, never in the one before (a probe settled by the next cut was
   * billed that cut's first refusal too). The probe stops either way; the peak is told whether the
   * cut read calmly.
   */
  onCut(cut: CutReport, ceiling: number): void {
    this.#ceilingPeak().onCut(cut.at, cut.calm);
    const probing = this.#probeMs !== undefined;
    this.#heldCut = !probing;
    this.#lastRefusalCutAt = cut.refusal ? cut.at : Number.POSITIVE_INFINITY;
    if (probing) this.#lastProbe.remember(cut, cut.heldBeforeProbe);
    if (this.#inAftermath(cut)) {
      toAftermath(this.#current());
      this.onRefusal();
    } else {
      if (this.#event?.probe) this.#settle(cut.at, ceiling);
      this.#event = {
        ...freshEvent(cut.at),
        refusals: 1,
        probe: probing,
        confirmed: probing && cut.confirmed,
        refusal: cut.refusal,
        heldBefore: probing ? cut.heldBeforeProbe : cut.current,
        probedFrom: probing ? ceiling : Number.NaN,
        owed: probing && this.#owedProbe,
      };
    }
    this.#probeMs = undefined;
  }

  /** A reading per the server's memory came to `ceiling` at `at` (see `CeilingPeak.recall`). */
  recallPeak(at: number, ceiling: number): void {
    this.#ceilingPeak().recall(at, ceiling);
  }

  /**
   * Whether the rate held since the last refused probe drew no cut: a probe
   * refused now then tells nothing against it (it was refusal-free). A rate
   * set by a refusal at the held rate counts so once it has been held
   * {@link HELD_PROVEN_MS} without another cut before the probe began.
   */
  get heldUncut(): boolean {
    return !this.#heldCut;
  }

  /** Starts a probe if the gate is open and the budget can pay, or it is owed ({@link Prober.owe}). */
  maybeStart(gate: ProbeGate): void {
    const budget = this.#budget;
    if (gate.ceiling === 0 || budget === undefined || gate.at < gate.holdUntil) return;
    let eager = this.#ceilingPeak().fallen(gate.at, gate.ceiling);
    if (gate.pausedUntil > gate.at) return;
    const event = this.#event ?? NO_EVENT;
    if (!event.refusal) {
      this.#start(gate.at, false); // after a timeout or a reset: free to look
      return;
    }
    const owed = this.#owed;
    if (!owed && !budget.allows(eager)) return;
    if (gate.quotaBinds()) return; // the server says how much
    if (event.probe) {
      eager = this.#settle(gate.at, gate.ceiling);
      if (!owed && !budget.allows(eager)) return;
    }
    this.#start(gate.at, owed);
  }

  /**
   * A cut left only a lower bound on the capacity (`leavesOnlyBound` in ceiling-cut.ts), or a
   * refused probe's `count` (requests/s) far below the rate refused says it rose more than that
   * (`CeilingRecounts.due`, {@link CeilingPeak.rose}; not while probing): the next probe, part of
   * that measurement, starts once the hold and the pause are over, unpaid. Not saved.
   */
  owe(count?: number): void {
    const rose = count === undefined || this.#ceilingPeak().rose(count);
    if (rose && this.#probeMs === undefined) this.#owed = true;
  }

  /**
   * A refusal in a refused probe's aftermath sent the rate far below the rate it refused, and its
   * reading left only a bound (`leavesOnlyBound` in ceiling-cut.ts): the next probe is owed
   * ({@link Prober.owe}), once per refused probe. The capacity that probe crossed lies between the
   * two; held at the return (a reading of its climb, or half way to the rate held before it, far
   * below a capacity that rose), the budget's next probe is a minute or more of constant pauses away.
   */
  oweAftermath(): void {
    const refusedAt = this.#lastProbe.at;
    if (refusedAt === this.#aftermathOwedFor) return;
    this.#aftermathOwedFor = refusedAt;
    this.owe();
  }

  /** The budget's plain state, if it was opened, its time as wall-clock epoch ms. */
  budgetState(clocks: ClockReading): ProbeBudgetState | undefined {
    return this.#budget?.snapshot(clocks);
  }

  /** Restores the budget from {@link Prober.budgetState}, already validated. */
  restoreBudget(state: ProbeBudgetState, clocks: ClockReading): void {
    this.#budget = new ProbeBudget(this.#shares.refusedShare, this.#shares.pausedShare, 0);
    this.#budget.restore(state, clocks);
  }

  /**
   * The ceiling to return to when the refusal `cut` (at a held rate) is the last refused probe's
   * aftermath and asks for the same constant pause (see {@link RefusedProbeMemory.returnTo});
   * undefined otherwise.
   */
  aftermathCeiling(cut: CutReport): number | undefined {
    return this.#probeMs === undefined ? this.#lastProbe.returnTo(cut) : undefined;
  }

  /**
   * Whether `refusal`, at a held rate, is the first in the last refused probe's aftermath (see
   * {@link RefusedProbeMemory.firstInAftermath}: above the rate held before it, and soon after),
   * whether or not that probe's bill was settled since; counted, once per refused probe. Never
   * while probing.
   */
  firstInAftermath(refusal: HeldRefusal): boolean {
    return this.#probeMs === undefined && this.#lastProbe.firstInAftermath(refusal);
  }

  #inAftermath(cut: CutReport): boolean {
    const event = this.#event;
    if (this.#probeMs !== undefined || event === undefined || !event.probe) return false;
    return inAftermath(cut, event.at, event.heldBefore);
  }

  /** The current congestion event, created at the first need. */
  #current(): CongestionEvent {
    this.#event ??= freshEvent(NEVER);
    return this.#event;
  }

  /**
   * Pays for the last probe's event, `ceiling` now learned, and closes it; whether the ceiling is a
   * fallen one (the next probe is eager). A probe whose event left the ceiling where it started, its
   * recount included (not lower: its floor is a margin below unless the held rate was proven), found
   * it where it was, as one whose reading did (a slow scope's reading, a few sends, is too coarse to
   * confirm within 5 %, but the ceiling stood): the patience grows, and twice in a row, at a slow
   * scope or under an unproven peak, the ceiling is no longer a fallen one
   * ({@link CeilingPeak.onProbe}). An eager probe pays half, an owed one nothing.
   */
  #settle(at: number, ceiling: number): boolean {
    const event = this.#current();
    const near = Math.abs(ceiling - event.probedFrom) <= SAME * event.probedFrom;
    const kept = near && ceiling >= event.probedFrom;
    this.#ceilingPeak().onProbe(at, ceiling, { kept, near }, toppedUp(ceiling));
    const confirmed = event.confirmed || kept;
    const eager = this.#ceilingPeak().fallen(at, ceiling);
    const watched = this.#ceilingPeak().below(at, ceiling) ? ceiling : undefined;
    if (!event.owed) this.#budget?.charge({ ...event, confirmed }, eager, watched);
    this.#event = freshEvent(event.at);
    return eager;
  }

  #ceilingPeak(): CeilingPeak {
    this.#peak ??= new CeilingPeak();
    return this.#peak;
  }

  /** Starts a probe at `at`; `owed`: the one a cut asked for. */
  #start(at: number, owed: boolean): void {
    this.#ceilingPeak().onStart(at);
    if (at - this.#lastRefusalCutAt >= HELD_PROVEN_MS) this.#heldCut = false;
    this.#owedProbe = owed;
    this.#owed = false;
    this.#probeMs = 0;
  }
}
