import { type ClockReading, fromWall, toWall } from './clock-reading.js';

/** Weight of each new probe's cost in the running estimate. */
const COST_WEIGHT = 0.3;
/**
 * Credit never piles up beyond this many probes' worth (a long quiet spell
 * buys no burst of probes), nor debt below it (one unlucky probe does not
 * stop probing for good).
 */
const MAX_PROBES_SAVED = 2;

/** What one probe cost: the refusals it drew and the pause they brought; and what it found. */
export interface ProbeCost {
  readonly refusals: number;
  readonly pauseMs: number;
  /** Whether it found the ceiling where it was (a stable capacity). */
  readonly confirmed?: boolean;
  /** What the probe itself cost, when the rate held after it was refused too (its aftermath): the rest is the aftermath's. */
  readonly own?: Spent | undefined;
  /** The rate held before the probe, requests/s: below {@link EARNING_FLOOR} its aftermath's debt is not bounded. */
  readonly heldBefore?: number;
}

/** Each probe that confirms the ceiling makes the next one wait this much longer, up to {@link MAX_PATIENCE}. */
const PATIENCE_GROWTH = 2;
const MAX_PATIENCE = 4;
/**
 * Under a ceiling that sits below its recent peak, patience stretches the wait for the next probe
 * to no more than this, ms, where a probe's refusals are earned sooner: a capacity shared with a
 * consumer that may leave is looked at again within it.
 */
const WATCH_MS = 20_000;
/** An eager probe (a capacity that fell) waits for this share of a probe's worth. */
const EAGER = 0.5;
/**
 * The refusals and pauses of a refused probe's aftermath (refused at a held rate above the one
 * held before it, within seconds) leave the budget no deeper in debt than this much time's earning,
 * ms (pause credit at `pausedShare`, refusal credit at {@link EARNING_FLOOR} requests/s): they are
 * the probe's too-high reading, or a capacity that fell in those seconds — then a debt of many
 * pauses would hold the next probe back for minutes while the capacity comes back. Not below
 * {@link EARNING_FLOOR} (see `aftermathBoundMs`).
 */
const AFTERMATH_DEBT_MS = 30_000;

/**
 * Requests/s of refusal credit every scope earns with time, when it sends
 * fewer: at a slow pace the requests alone would pay for a probe once in many
 * minutes, and a capacity that rose would never be found (at the default 1 %,
 * this is about one probe's refusal a minute: nothing a server bans for).
 */
const EARNING_FLOOR = 2;

/** Serialisable state of a {@link ProbeBudget}. */
export type ProbeBudgetState = {
  /** Refusals the budget can pay for now. */
  refusalCredit: number;
  /** Pause time the budget can pay for now, ms. */
  pauseCreditMs: number;
  /** Expected refusals per probe. */
  refusalCost: number;
  /** Expected pause per probe, ms. */
  pauseCostMs: number;
  /** How many probes' worth of credit the next probe waits for (more after confirmations). */
  patience: number;
  /** When the pause credit was last brought up to date (wall-clock epoch ms, saved). */
  at: number;
};

/**
 * What probing above a learned ceiling may spend. A probe is the only way to
 * find a capacity that rose, and it costs what the server charges for
 * exceeding: the refusals it draws and any pause they bring. The budget earns
 * `refusedShare` of a refusal per request sent and `pausedShare` of a
 * millisecond per millisecond of time, pays for each probe once its cost is
 * known, and allows the next one once it holds what a probe is expected to
 * cost — an estimate that follows what recent probes really cost — times a
 * patience that doubles with each probe that found the ceiling where it was
 * (up to 4×, less under a ceiling below its recent peak: see
 * {@link WATCH_MS}) and drops back when one finds it moved: a stable capacity is
 * checked less often, a moving one as often as the budget allows. (Refusals
 * no probe caused — a slow start's overshoot, a capacity that fell — are not
 * charged: they are not the price of looking.) So cheap refusals (no pause, a refusal or two) allow frequent
 * probes, and a server that pauses every refusal for seconds gets rare ones;
 * over time refusals stay near `refusedShare` of requests and pauses near
 * `pausedShare` of time.
 */
export class ProbeBudget {
  readonly #refusedShare: number;
  readonly #pausedShare: number;
  #state: ProbeBudgetState;
  /** Requests earned for since the time was last brought up to date. */
  #requestsSince = 0;

  /**
   * @param probes credit to start with, in probes' worth.
   * @param pauseMs the pause a probe is expected to cost to start with, ms
   *   (until the first probe's bill says otherwise).
   */
  constructor(refusedShare: number, pausedShare: number, at: number, probes = 0, pauseMs = 0) {
    this.#refusedShare = refusedShare;
    this.#pausedShare = pausedShare;
    this.#state = {
      refusalCredit: probes,
      pauseCreditMs: 0,
      refusalCost: 1,
      pauseCostMs: pauseMs,
      patience: 1,
      at,
    };
  }

  /** Takes back up to `probes` probes' worth of refusal credit, never below zero by it. */
  forgo(probes: number): void {
    const s = this.#state;
    s.refusalCredit = Math.max(Math.min(s.refusalCredit, 0), s.refusalCredit - probes);
  }

  /** Earns the credit of one request sent. */
  onRequest(): void {
    this.#requestsSince++;
    this.#earn(1);
  }

  /** Earns the refusal credit of `requests` requests. */
  #earn(requests: number): void {
    const s = this.#state;
    s.refusalCredit = Math.min(
      s.refusalCredit + requests * this.#refusedShare,
      MAX_PROBES_SAVED * s.refusalCost * s.patience,
    );
  }

  /** Earns the pause credit of the time up to `at`, and a slow scope's refusal credit (see {@link EARNING_FLOOR}). */
  onTime(at: number): void {
    const s = this.#state;
    if (at > s.at) {
      s.pauseCreditMs += (at - s.at) * this.#pausedShare;
      const unsent = ((at - s.at) / 1000) * EARNING_FLOOR - this.#requestsSince;
      if (unsent > 0) this.#earn(unsent);
      this.#requestsSince = 0;
    }
    s.at = Math.max(s.at, at);
    s.pauseCreditMs = Math.min(s.pauseCreditMs, MAX_PROBES_SAVED * s.pauseCostMs * s.patience + 1);
  }

  /**
   * Pays for a finished probe and learns from what it cost; `eager` (a
   * capacity that fell, and may come back) pays half and drops the patience;
   * `watched`: the ceiling, when it sits under its recent peak (a capacity an
   * unseen consumer may have taken a share of, and may give back): the
   * patience then stretches the wait to about {@link WATCH_MS} at most.
   */
  charge(cost: ProbeCost, eager = false, watched?: number): void {
    const s = this.#state;
    const paid = paidFor(cost, eager ? EAGER : s.patience);
    const debt = MAX_PROBES_SAVED * Math.max(cost.refusals, s.refusalCost);
    const refusalsLeft = Math.max(-debt, s.refusalCredit - paid.own.refusals);
    const boundMs = aftermathBoundMs(cost);
    const aftermathRefusals = (boundMs / 1000) * EARNING_FLOOR * this.#refusedShare;
    const refusalCredit = afterAftermath(refusalsLeft, paid.aftermath.refusals, aftermathRefusals);
    s.refusalCredit = Math.max(-debt, refusalCredit);
    const pauseDebt = MAX_PROBES_SAVED * Math.max(cost.pauseMs, s.pauseCostMs);
    const pauseLeft = Math.max(-pauseDebt, s.pauseCreditMs - paid.own.pauseMs);
    const aftermathPauseMs = boundMs * this.#pausedShare;
    s.pauseCreditMs = Math.max(
      -pauseDebt,
      afterAftermath(pauseLeft, paid.aftermath.pauseMs, aftermathPauseMs),
    );
    s.refusalCost += (Math.max(1, cost.refusals) - s.refusalCost) * COST_WEIGHT;
    s.pauseCostMs += (cost.pauseMs - s.pauseCostMs) * COST_WEIGHT;
    s.patience =
      cost.confirmed && !eager
        ? Math.min(this.#maxPatience(watched), s.patience * PATIENCE_GROWTH)
        : 1;
  }

  /** The most patience for a ceiling `watched` (see {@link WATCH_MS}), or any. */
  #maxPatience(watched: number | undefined): number {
    if (watched === undefined) return MAX_PATIENCE;
    const s = this.#state;
    const refusalsMs =
      (1000 * s.refusalCost) / (this.#refusedShare * Math.max(watched, EARNING_FLOOR));
    if (refusalsMs > WATCH_MS) return MAX_PATIENCE;
    const plainMs = Math.max(refusalsMs, s.pauseCostMs / this.#pausedShare);
    return Math.max(1, Math.min(MAX_PATIENCE, WATCH_MS / plainMs));
  }

  /**
   * Whether the credit covers what a probe is expected to cost, times the
   * patience; `eager` (a capacity that fell may come back) asks for half a
   * probe's worth, whatever the patience.
   */
  allows(eager = false): boolean {
    const s = this.#state;
    const times = eager ? EAGER : s.patience;
    return s.refusalCredit >= s.refusalCost * times && s.pauseCreditMs >= s.pauseCostMs * times;
  }

  /** Plain state, its time as wall-clock epoch ms. */
  snapshot(clocks: ClockReading): ProbeBudgetState {
    return { ...this.#state, at: toWall(this.#state.at, clocks) };
  }

  /** Restores state from {@link ProbeBudget.snapshot}, already validated. */
  restore(state: ProbeBudgetState, clocks: ClockReading): void {
    this.#state = { ...state, at: fromWall(state.at, clocks) };
  }
}

/**
 * What a probe's `cost` takes from the credit at `patience`: a patient budget
 * pays more per probe, so that probes really are rarer — but only for the
 * probe's own refusals and pauses. Those of its aftermath (the rate its
 * reading set, refused as held: often a reading taken while an unseen
 * consumer competed) are paid once each, no more than the probe's own rate:
 * times the patience they would leave the budget in debt for minutes after
 * each probe of a slow scope, and its next probe would miss a capacity that
 * came back (and at the earning floor or above, no debt beyond {@link AFTERMATH_DEBT_MS}).
 */
function paidFor(cost: ProbeCost, patience: number): { own: Spent; aftermath: Spent } {
  const own = cost.own ?? cost;
  const held = Math.min(1, patience);
  return {
    own: { refusals: own.refusals * patience, pauseMs: own.pauseMs * patience },
    aftermath: {
      refusals: (cost.refusals - own.refusals) * held,
      pauseMs: (cost.pauseMs - own.pauseMs) * held,
    },
  };
}

/** Refusals and pause time paid. */
interface Spent {
  readonly refusals: number;
  readonly pauseMs: number;
}

/**
 * How much earning time a probe's aftermath may leave the budget in debt, ms: {@link AFTERMATH_DEBT_MS},
 * or no bound where the rate held before the probe was under {@link EARNING_FLOOR} — there each
 * refusal is a larger share of the requests than the budget's, and only the debt keeps the refused
 * share within it.
 */
function aftermathBoundMs(cost: ProbeCost): number {
  return toppedUp(cost.heldBefore ?? Number.POSITIVE_INFINITY)
    ? Number.POSITIVE_INFINITY
    : AFTERMATH_DEBT_MS;
}

/**
 * A credit `left` after a probe's own bill, less its aftermath's `paid`: no lower than `-bound`
 * (see {@link AFTERMATH_DEBT_MS}), nor raised by it.
 */
function afterAftermath(left: number, paid: number, bound: number): number {
  return Math.max(left - paid, Math.min(left, -bound));
}

/**
 * Whether a scope held near `ceiling` requests/s earns refusal credit from
 * {@link EARNING_FLOOR} rather than from its requests: each of its probes'
 * refusals is then a larger share of its requests than the budget's.
 */
export function toppedUp(ceiling: number): boolean {
  return ceiling < EARNING_FLOOR;
}
