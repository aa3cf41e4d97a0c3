/**
 * How many successes were sent at each in-flight count, over a span of
 * memory and the one before it (see `CapEvidence`): for where a refusal's
 * count stands among them — under timing noise a count is not the server's,
 * and the most any success was sent at is an outlier's (see `CountNoise`).
 */
export class InflightTally {
  /** Successes by in-flight count, this span and the previous. */
  #current: number[] = [];
  #previous: number[] = [];

  /** Notes a success sent at `inflight`. */
  add(inflight: number): void {
    this.#current[inflight] = (this.#current[inflight] ?? 0) + 1;
  }

  /** Starts a new span: the current one becomes the previous, or is dropped with it (`keep` false). */
  roll(keep: boolean): void {
    this.#previous = keep ? this.#current : [];
    this.#current = [];
  }

  /** The share of the tallied successes sent at `inflight` or more (0 before any). */
  shareFrom(inflight: number): number {
    let from = 0;
    let all = 0;
    for (const counts of [this.#current, this.#previous]) {
      counts.forEach((n, at) => {
        all += n;
        if (at >= inflight) from += n;
      });
    }
    return all === 0 ? 0 : from / all;
  }
}
