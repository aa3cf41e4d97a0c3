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
 * A spell ended by a penalty that accepted under this share of what the spell
 * before it accepted was refused for what the limit still counted of that one:
 * a window that outlasts the block it guards (a sliding counter still weighing
 * the window before) takes the rest of its count as sending resumes and is met
 * again at once. The count it met is the spell before's.
 */
const REMAINDER = 0.5;
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
  /** The count the limit met by its end: what it accepted, or the spell before's where it was a remainder ({@link REMAINDER}). */
  readonly met: number;
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

  /** @param firstSentAt when the scope's first accepted request was sent, ms (NaN: none yet). */
  constructor(firstSentAt: number) {
    this.#firstSentAt = firstSentAt;
  }

  /**
   * A penalty: a refusal of a request sent at `sentAt`, arriving at `at`, that
   * asked for a pause of `pauseMs`, the scope having accepted `acceptedTotal`
   * requests in all. Returns what it and the penalty before it read,
   * requests/s (see {@link PenaltySpells}), or undefined. A request sent
   * before the latest penalty's pause ended is refused by that same penalty.
   */
  onPenalty(
    sentAt: number,
    at: number,
    pauseMs: number,
    acceptedTotal: number,
  ): number | undefined {
    const previous = this.#latest;
    if (previous !== undefined && sentAt < previous.resumesAt) return undefined;
    const accepted = acceptedTotal - this.#acceptedBy;
    this.#acceptedBy = acceptedTotal;
    const from = previous?.resumesAt ?? this.#firstSentAt;
    const met =
      previous !== undefined && accepted < REMAINDER * previous.met ? previous.met : accepted;
    this.#latest = { from, accepted, met, resumesAt: at + pauseMs, pauseMs };
    const spellMs = sentAt - from;
    if (previous === undefined || !(spellMs >= MIN_SPELL_MS && spellMs < previous.pauseMs))
      return undefined;
    if (accepted > previous.met * SAME_COUNT) return undefined;
    return ((previous.accepted + accepted) * 1000) / (sentAt - previous.from);
  }
}
