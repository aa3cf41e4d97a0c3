/**
 * A closure this long or longer, ms (from the start of the pause whose resume
 * found the server still closed to the first accepted send after it), was a
 * penalty for the rate that tripped it, not a window's boundary: most windows
 * reopen within seconds of the refusal, and a penalty box blocks for 10 s to
 * minutes whatever the client does. A minute-long window's closure is as long:
 * what its cycle granted bounds the cut (see {@link rateAfterLongClosure}).
 */
const LONG_CLOSURE_MS = 20_000;

/** A long closure lowers the rate that tripped it to this share of it. */
const PENALTY_CUT = 0.7;

/** What a long closure says once the server reopened (see {@link ClosureSpan.reopened}). */
export interface LongClosure {
  /** How long the server stayed closed, ms. */
  readonly closedMs: number;
  /** How long the whole cycle lasted, ms: from the previous reopening (or the first acceptance) to this one. */
  readonly cycleMs: number;
  /**
   * What the server granted over the whole cycle, requests/s: the sends it
   * accepted from the previous reopening (or the first acceptance) up to this
   * one, over that time. A window that closes at its boundary grants this much
   * every cycle at any rate above it; a penalty box, less.
   */
  readonly cycleRate: number;
  /** The highest rate sent at when the refusals that began it came, requests/s (`Infinity`: unpaced). */
  readonly trippedRate: number;
  /**
   * What a penalty's remainder read, requests/s (see `PenaltySpells.remainderRate`): the
   * resume that found a window still counting the spell before its block; `Infinity`: none.
   */
  readonly remainderRate: number;
}

/**
 * How long the server stayed closed while sending resumed: a closure starts
 * with the pause whose resume found the server still closed, and ends with the
 * first accepted send after the latest of its pauses. A long one is reported
 * once, with what the cycle before it granted and the rate that tripped it, so
 * that this rate comes down however the refusals were judged (the refusal that
 * began it may have been forgiven as an earlier closure's tail).
 */
export class ClosureSpan {
  /** Start of the closure in progress, ms; undefined when the server is not known closed. */
  #closedFrom: number | undefined;
  /** Start of the current cycle (the previous reopening, or the first acceptance), ms. */
  #cycleFrom: number | undefined;
  /** Accepted outcomes since the cycle started. */
  #acceptedInCycle = 0;
  /** The highest rate of a refusal since a send after the latest pause was accepted. */
  #trippedRate: number | undefined;
  /** What a remainder found in the closure in progress read, requests/s (Infinity: none). */
  #remainderRate = Number.POSITIVE_INFINITY;

  /**
   * @param firstSentAt when the scope's first accepted request was sent, ms (NaN: none yet).
   * @param accepted how many the scope accepted before this began (its first cycle's).
   */
  constructor(firstSentAt: number, accepted: number) {
    this.#cycleFrom = Number.isNaN(firstSentAt) ? undefined : firstSentAt;
    this.#acceptedInCycle = accepted;
  }

  /** Notes a refusal that did not find the server closed, sent at `rate` (requests/s). */
  refused(rate: number): void {
    this.#trippedRate = Math.max(this.#trippedRate ?? 0, rate);
  }

  /**
   * Notes that a resume found the server still closed after a pause that started at `pauseFrom`;
   * `remainderRate`: what a penalty's remainder read (see `PenaltySpells.remainderRate`).
   */
  foundClosed(pauseFrom: number, remainderRate = Number.POSITIVE_INFINITY): void {
    this.#closedFrom ??= pauseFrom;
    this.#remainderRate = Math.min(this.#remainderRate, remainderRate);
  }

  /**
   * Notes an accepted outcome sent at `sentAt`, `resumedFrom` the end of the
   * latest pause; returns the closure it ended when that was long, else undefined.
   */
  reopened(sentAt: number, resumedFrom: number): LongClosure | undefined {
    this.#cycleFrom ??= sentAt;
    const closedFrom = this.#closedFrom;
    if (sentAt >= resumedFrom) {
      const trippedRate = this.#trippedRate ?? Infinity;
      this.#trippedRate = undefined;
      if (closedFrom !== undefined) return this.#ended(sentAt, closedFrom, trippedRate);
    }
    this.#acceptedInCycle++;
    return undefined;
  }

  /** Ends the closure in progress with the send accepted at `sentAt`, and starts the next cycle. */
  #ended(sentAt: number, closedFrom: number, trippedRate: number): LongClosure | undefined {
    const closedMs = sentAt - closedFrom;
    const cycleMs = sentAt - (this.#cycleFrom ?? sentAt);
    const cycleRate = cycleMs > 0 ? (this.#acceptedInCycle * 1000) / cycleMs : Infinity;
    const remainderRate = this.#remainderRate;
    this.#closedFrom = undefined;
    this.#cycleFrom = sentAt;
    this.#acceptedInCycle = 1;
    this.#remainderRate = Number.POSITIVE_INFINITY;
    return closedMs >= LONG_CLOSURE_MS
      ? { closedMs, cycleMs, cycleRate, trippedRate, remainderRate }
      : undefined;
  }
}

/**
 * The rate to hold after a long closure, requests/s, from the rate `held`
 * now: the rate that tripped it (the held one, where that is unknown) cut by
 * {@link PENALTY_CUT} — a penalty says it was over the limit, however its
 * refusals were judged — but to no less than what the whole cycle granted (a
 * window that closes at its boundary grants that much at any rate above it,
 * and bursting it costs nothing), and never above `held` nor above what a
 * penalty's remainder read (a window that outlasts its block).
 */
export function rateAfterLongClosure(closure: LongClosure, held: number): number {
  const tripped = Number.isFinite(closure.trippedRate) ? closure.trippedRate : held;
  const cut = Math.max(tripped * PENALTY_CUT, closure.cycleRate);
  return Math.min(held, closure.remainderRate, cut);
}

/**
 * What a long closure cost, ms at the rate `held` after it (see
 * {@link rateAfterLongClosure}): the time of its whole cycle that went
 * ungranted at that rate (what `held` would have sent over the cycle, less
 * what the cycle granted, per `held`). A window that closes at its boundary
 * grants its count whatever was sent over it, and the rate held after it is no
 * lower than that grant: nothing lost. A penalty box grants nothing while it
 * blocks: about the block's length.
 */
export function closurePriceMs(closure: LongClosure, held: number): number {
  return closure.cycleMs * Math.max(0, 1 - closure.cycleRate / held);
}
