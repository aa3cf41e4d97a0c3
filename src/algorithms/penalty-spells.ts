import type { Sample } from './sample.js';

/**
 * A refusal naming a pause this long or longer is a penalty, ms: a server that
 * blocks a client once it goes over (Cloudflare's rate-limiting rules, a WAF's
 * ban), or a long window spent, not the second or two a window or a bucket
 * asks to refill.
 */
export const PENALTY_MS = 10_000;
/**
 * A spell ended by a penalty that accepted no more than this many times what
 * the spell before the previous penalty accepted met the same count again.
 */
const SAME_COUNT = 1.25;
/**
 * A spell after a penalty's pause that accepted under this share of what the
 * spell before it accepted, where that one met a count (it was shorter than
 * its block), sent no faster than it (see {@link SAME_PACE}), took a
 * remainder: the limit still counted the spell before the block when it ended
 * (see {@link PenaltySpells.remainderRate}). A quarter, not a half: a
 * second's window behind an unseen consumer, its answers a second long, was
 * refused after 23 where the spell before took 83 (field seed 13 #33), and a
 * short spell's count at its refusal still lacks the answers in flight.
 */
const REMAINDER = 0.25;
/**
 * A remainder's spell was sent at no more than this many times the pace the
 * spell before it was accepted at: a rate the server took for longer before
 * the block, refused sooner after it. A spell sent faster than the one before
 * may be refused sooner for its rate alone (a second's window behind a long
 * block, drained during it).
 */
const SAME_PACE = 1.25;
/**
 * A spell shorter than this says nothing of a count, ms: sent that fast, it
 * was refused for its rate within any window. Nor does one as long as the
 * block before it: it outlasted the window (a block is no shorter than the
 * window it guards), and what it was sent at is a rate.
 */
const MIN_SPELL_MS = 1000;

/** The pause a refusal `sample` asked, ms, if it is a penalty ({@link PENALTY_MS} or more); else 0. */
export function penaltyAsked(sample: Sample): number {
  const askedMs = sample.signal.retryAfterMs ?? 0;
  return askedMs >= PENALTY_MS ? askedMs : 0;
}

/** A spell of sending a penalty ended. */
interface Spell {
  /** When it began (the first send, or sending resumed after a penalty), ms. */
  readonly from: number;
  /** Requests accepted in it. */
  readonly accepted: number;
  /** How long it lasted, ms: from its start to the send the penalty refused. */
  readonly spellMs: number;
  /** When the pause the penalty asked ends, ms. */
  readonly resumesAt: number;
  /** The pause the penalty asked, ms. */
  readonly pauseMs: number;
}

/**
 * The spells of sending between a scope's penalties (refusals naming a pause
 * of {@link PENALTY_MS} or more), and what a repeated count reads. A limit
 * that counts over a window longer than the spell it refused — a minute
 * counted over a spell of 28 s — is read at the spell's pace, twice or more
 * what it grants, and held there it is refused again after the same count (or
 * less, where its count still weighs what was sent before the block), blocked
 * each time. A spell after a penalty's pause, shorter than that pause, refused
 * by the next penalty having accepted no more than the spell before it
 * ({@link SAME_COUNT}) met a count, not a rate: what the server granted over both spells and the pause
 * between them, per that time, is what it grants — the rate of a window as
 * long as its block, and under it where the block is longer (the cut is still
 * at most by half, as for any refusal at the held rate: a second's window met
 * again at a rate a little over it reads the same count too).
 */
export class PenaltySpells {
  /** When the scope's first accepted request was sent, ms (NaN: none yet). */
  readonly #firstSentAt: number;
  /** The scope's count of accepted requests at the latest penalty. */
  #acceptedBy = 0;
  #latest: Spell | undefined;
  /** What the latest penalty's spell read as a remainder, requests/s; Infinity when it was none. */
  #remainder = Number.POSITIVE_INFINITY;

  /** @param firstSentAt when the scope's first accepted request was sent, ms (NaN: none yet). */
  constructor(firstSentAt: number) {
    this.#firstSentAt = firstSentAt;
  }

  /**
   * A penalty: a refusal of a request sent at `sentAt`, arriving at `at`, that
   * asked for a pause of `pauseMs`, the scope having accepted `acceptedTotal`
   * requests in all, sent at `rate` (requests/s; Infinity: unpaced). Returns what it and the penalty before it read,
   * requests/s (see {@link PenaltySpells}), or undefined. A request sent
   * before the latest penalty's pause ended is refused by that same penalty.
   */
  onPenalty(
    sentAt: number,
    at: number,
    pauseMs: number,
    acceptedTotal: number,
    rate = Number.POSITIVE_INFINITY,
  ): number | undefined {
    this.#remainder = Number.POSITIVE_INFINITY;
    const previous = this.#latest;
    if (previous !== undefined && sentAt < previous.resumesAt) return undefined;
    const accepted = acceptedTotal - this.#acceptedBy;
    this.#acceptedBy = acceptedTotal;
    const from = previous?.resumesAt ?? this.#firstSentAt;
    const spellMs = sentAt - from;
    this.#latest = { from, accepted, spellMs, resumesAt: at + pauseMs, pauseMs };
    if (previous !== undefined && tookRemainder(previous, accepted, rate))
      this.#remainder = (previous.accepted * 1000) / (previous.resumesAt - previous.from);
    if (previous === undefined || !(spellMs >= MIN_SPELL_MS && spellMs < previous.pauseMs))
      return undefined;
    if (accepted > previous.accepted * SAME_COUNT) return undefined;
    return ((previous.accepted + accepted) * 1000) / (sentAt - previous.from);
  }

  /**
   * What the latest penalty read where its spell took a remainder, requests/s;
   * Infinity otherwise. A limit whose window outlasts the block it guards (a
   * sliding counter still weighing the window before) takes, as sending resumes,
   * only what the spell before the block left of its count, and blocks again at
   * once: the block's end is not the window's. The spell before met a count in
   * a window at least as long as its block: that count over the spell and the
   * block after it is no more than the window grants — the rate to resume at,
   * where held above it every resume is blocked again for a remainder.
   */
  get remainderRate(): number {
    return this.#remainder;
  }
}

/**
 * Whether a spell sent at `rate` that accepted `accepted` after the `previous`
 * spell's pause took a remainder ({@link REMAINDER}, {@link SAME_PACE}). One
 * that accepted nothing took none: its resume found the server still closed (a
 * constant `Retry-After` shorter than the window it guards), a closure of its own.
 */
function tookRemainder(previous: Spell, accepted: number, rate: number): boolean {
  const pace = (previous.accepted * 1000) / previous.spellMs;
  return (
    previous.spellMs < previous.pauseMs &&
    accepted > 0 &&
    accepted < REMAINDER * previous.accepted &&
    rate <= SAME_PACE * pace
  );
}
