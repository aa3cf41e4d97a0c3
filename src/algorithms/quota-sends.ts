/** Outcomes kept at most (a round trip's worth at a few hundred requests a second). */
const KEPT = 4096;

/**
 * How many of our requests were sent before and after a given one, counted
 * from the requests in flight and the outcomes that arrived: what a
 * `remaining` read from its answer has counted of ours, and what not yet.
 *
 * The requests in flight now are not all sent after it: some were sent
 * before (already counted in its `remaining` when it overtook them), and some
 * sent after it are already answered. What was in flight just after it was
 * sent, the outcomes that arrived since and what is in flight now tell the
 * sends since exactly: `in flight now + arrived since − in flight then`; and
 * the outcomes before it, with what was in flight then, its ordinal.
 */
export class QuotaSends {
  /** The requests in flight just after the send counted from (it included). */
  #inflight = 0;
  /** Whether the outcomes since the send counted from are all kept. */
  #complete = false;
  /** Arrival times of the outcomes after `#keptSince`, all of them (ascending), and how many arrived in all. */
  #arrivals: number[] = [];
  #keptSince = -Infinity;
  #outcomes = 0;

  /** One outcome arrived at `at` (an answer with or without a quota, an error). */
  onOutcome(at: number): void {
    this.#outcomes++;
    if (at <= this.#keptSince) return;
    if (this.#arrivals.length >= KEPT) {
      this.#keptSince = this.#arrivals[this.#arrivals.length - 1] as number;
      this.#arrivals = [];
    }
    this.#arrivals.push(at);
  }

  /** Counts from the request sent at `sentAt`, with `inflight` in flight just after (it included). */
  countFrom(sentAt: number, inflight: number): void {
    this.#complete = sentAt >= this.#keptSince;
    this.#inflight = inflight;
    const arrivals = this.#arrivals;
    let dropped = 0;
    while (dropped < arrivals.length && (arrivals[dropped] as number) <= sentAt) dropped++;
    if (dropped > 0) this.#arrivals = arrivals.slice(dropped);
    this.#keptSince = Math.max(this.#keptSince, sentAt);
  }

  /**
   * The ordinal of the send counted from among all of ours (it included;
   * only differences between two mean anything), `undefined` when unsure.
   */
  get ordinal(): number | undefined {
    return this.#complete ? this.#outcomes - this.#arrivals.length + this.#inflight : undefined;
  }

  /**
   * Requests of ours sent after the one counted from, with `outstanding` in
   * flight now: never more than those (all of them when unsure).
   */
  since(outstanding: number): number {
    if (!this.#complete) return outstanding;
    const sent = outstanding + this.#arrivals.length - this.#inflight;
    return Math.min(outstanding, Math.max(0, sent));
  }
}
