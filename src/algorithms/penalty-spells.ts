import type { Sample } from './sample.js';

/**
 * A refusal naming a pause this long or longer is a penalty, ms: a server that
 * blocks a client once it goes over (Cloudflare's rate-limiting rules, a WAF's
 * ban), or a long window spent, not the second or two a window or a bucket
 * asks to refill.
 */
export const PENALTY_MS = 10_000;

/** The pause a refusal `sample` asked, ms, if it is a penalty ({@link PENALTY_MS} or more); else 0. */
export function penaltyAsked(sample: Sample): number {
  const askedMs = sample.signal.retryAfterMs ?? 0;
  return askedMs >= PENALTY_MS ? askedMs : 0;
}
/**
 * A spell ended by a penalty that accepted no more than this many times what
 * the spell before the previous penalty accepted met the same count again.
 */
const SAME_COUNT = 1.25;
/**
 * A spell shorter than this says nothing of a memory, ms: sent that fast, it
 * was refused for its rate within any window.
 */
const MIN_SPELL_MS = 1000;

/** The spell of sending a penalty ended, and the pause it asked. */
interface Penalty {
  /** Requests accepted in the spell. */
  readonly accepted: number;
  /** When the pause it asked ends (sending resumes), ms. */
  readonly resumesAt: number;
  readonly pauseMs: number;
}

/**
 * The spells of sending between a scope's penalties (refusals naming a pause
 * of {@link PENALTY_MS} or more), and the memory they prove. A limit that
 * counts over a window longer than the spell it refused — a minute counted
 * over a spell of 28 s — is read at its spell's pace, twice or more what it
 * grants, and held there it is refused again after the same count, blocked
 * each time. A spell after a penalty's pause that is refused by the next
 * penalty having accepted no more than the spell before it
 * ({@link SAME_COUNT}) met a count, not a rate: the server remembered what
 * it granted over this spell and the pause before it, at least.
 */
export class PenaltySpells {
  /** The scope's count of accepted requests at the latest penalty. */
  #acceptedBy = 0;
  #latest: Penalty | undefined;

  /**
   * A penalty: a refusal of a request sent at `sentAt`, arriving at `at`, that
   * named a pause of `pauseMs`, the scope having accepted `accepted` requests in
   * all by then. Returns the memory, ms, that it and the
   * penalty before it prove (see {@link PenaltySpells}), or 0 for none. A
   * request sent before the latest penalty's pause ended is refused by that
   * same penalty.
   */
  onPenalty(sentAt: number, at: number, pauseMs: number, accepted: number): number {
    const previous = this.#latest;
    if (previous !== undefined && sentAt < previous.resumesAt) return 0;
    const spellAccepted = accepted - this.#acceptedBy;
    this.#acceptedBy = accepted;
    this.#latest = { accepted: spellAccepted, resumesAt: at + pauseMs, pauseMs };
    if (previous === undefined) return 0;
    const spellMs = sentAt - previous.resumesAt;
    if (spellMs < MIN_SPELL_MS || spellAccepted > previous.accepted * SAME_COUNT) return 0;
    return spellMs + previous.pauseMs;
  }
}
