import { GrantHistory } from './grant-history.js';

/** The longest memory read, ms: a minute (what the grant history keeps). */
const MAX_MEMORY_MS = 60_000;

/**
 * A server that stayed closed this long after refusing, ms, remembers more
 * than a second of what it granted: a window or a log of several seconds.
 * No 1 s limit does (it reopens within its second), nor a bucket or a GCRA
 * of 1 req/s or more (within a token's time).
 */
const LONG_CLOSED_MS = 2000;

/**
 * A spell of sending longer than this many times the closed time after it
 * says nothing of the memory beyond that closed time: its start may have aged
 * out long before the refusal (a 10 s window refused after a spell of 35 s
 * stays closed 3 s, not 38). A spell held at 4/3 of a log's rate or faster,
 * the over-read worth correcting, fits within this share.
 */
const SPELL_PER_CLOSED = 3;

/**
 * How long a server remembers what it granted, learned from how long it stayed
 * closed after a refusal. A log (or a window) refused at the end of a spell of
 * sending stays closed until what that spell sent ages out: its memory spans
 * the spell and the closed time after it, at least to the last resume found
 * still closed (the first one accepted may have come a pause after it
 * reopened). What a refusal reads is then at most what the server accepted
 * over that memory, per that memory (see `RateMeter.remembered`): a 10 s
 * log's 245 requests sent in 5.4 s are not 45 req/s but 245 over the 8.4 s
 * it was seen to remember them, about 29, and at a rate held near its own,
 * what it holds over its 10 s.
 */
export class ServerMemory {
  #ms = 0;
  /** What was accepted since the memory was learned. */
  #history: GrantHistory | undefined;
  /** When the spell of sending that the current refusal ended began (sending resumed), ms. */
  #spellFrom = Number.NaN;
  /** The send the refusal that ended the spell answered, ms. */
  #refusedAt = Number.NaN;
  /** The last resume found still closed since that refusal, ms (NaN: none yet). */
  #closedAt = Number.NaN;

  /** The longest memory learned, ms (0: none longer than {@link LONG_CLOSED_MS}). */
  get ms(): number {
    return this.#ms;
  }

  /**
   * A refusal after sending resumed at `resumedAt` ends a spell: its send,
   * `sentAt`. Only one that named no pause (`unhinted`) is followed: where the
   * pauses are the server's, a resume refused after one is its word, not its
   * memory (a consumer that took a slow window's share first, a constant
   * `Retry-After` shorter than a long window: either way the wait is named).
   */
  onRefusal(sentAt: number, resumedAt: number, unhinted: boolean): void {
    this.#spellFrom = resumedAt;
    this.#refusedAt = unhinted ? sentAt : Number.NaN;
    this.#closedAt = Number.NaN;
  }

  /** A resume sent at `sentAt` found the server still closed. */
  onClosed(sentAt: number): void {
    if (Number.isFinite(this.#refusedAt)) this.#closedAt = sentAt;
  }

  /** A send at `sentAt` was accepted: after a resume found closed, the server was open by then. */
  onAccepted(sentAt: number): void {
    this.#history?.add(sentAt);
    const closedMs = this.#closedAt - this.#refusedAt;
    if (!(sentAt > this.#closedAt) || !(closedMs >= LONG_CLOSED_MS)) return;
    const spellMs = this.#refusedAt - this.#spellFrom;
    if (spellMs <= SPELL_PER_CLOSED * closedMs)
      this.#ms = Math.min(MAX_MEMORY_MS, Math.max(this.#ms, spellMs + closedMs));
    this.#history ??= new GrantHistory(sentAt);
    this.#refusedAt = Number.NaN;
  }

  /**
   * What the server accepted over its memory up to `sentAt`, per that memory,
   * requests/s: Infinity until a memory is learned and the history reaches back over it.
   */
  remembered(sentAt: number): number {
    if (this.#ms === 0) return Number.POSITIVE_INFINITY;
    const count = this.#history?.countIn(sentAt - this.#ms, sentAt);
    return count === undefined ? Number.POSITIVE_INFINITY : (count * 1000) / this.#ms;
  }
}
