/** Accepted sends counted over a span of send times, and where that count begins. */
export interface SpanCount {
  readonly count: number;
  readonly fromMs: number;
}

/**
 * The accepted sends of a recount's span (see `Recount`), counted as they come
 * in. A recount reads its span once the outcomes are in — a second or more
 * after its refusal — from the kept send times (see `SentTimes`), which hold
 * the latest 256 acceptances: a scope granted a few hundred requests a second
 * or more has crowded the whole span out of them by then, and the recount read
 * nothing. A refused free probe then held its floor for good (s3 #6, a cap of
 * 50 on 34 ms pages paced as a rate under 0–5 ms of timing noise: every probe,
 * refused at 1200–1960 req/s, went back to half the first rate refused, 46 %
 * of the capacity). The tally starts from what the kept sends hold of the span
 * when the recount is planned and counts each acceptance sent in it after:
 * what the kept sends would say at the recount, had they room.
 */
export class SpanTally {
  readonly #to: number;
  readonly #fromMs: number;
  #count: number;

  /**
   * @param kept what the kept send times hold of [`from`, `to`] now
   *   (`RateMeter.acceptedSentIn`); undefined when they hold nothing.
   */
  constructor(kept: SpanCount | undefined, from: number, to: number) {
    this.#to = to;
    this.#fromMs = kept?.fromMs ?? from;
    this.#count = kept?.count ?? 0;
  }

  /** Counts an acceptance sent at `sentAt`, if its send falls in the span. */
  accepted(sentAt: number): void {
    if (sentAt >= this.#fromMs && sentAt <= this.#to) this.#count++;
  }

  /**
   * The span's count: `kept` (what the kept send times hold of it now) where
   * they reach back as far as the tally, else the tally's.
   */
  reading(kept: SpanCount | undefined): SpanCount {
    if (kept !== undefined && kept.fromMs <= this.#fromMs) return kept;
    return { count: this.#count, fromMs: this.#fromMs };
  }
}
