/** Hosts whose request counts are kept; beyond it the least recently seen one is forgotten. */
export const MAX_TRACKED_HOSTS = 10_000;

/**
 * Requests counted per host, in bounded memory: at most `capacity` hosts are
 * held, and a new host beyond it evicts the one seen least recently (a host
 * that comes back later counts from 1 again). A log of millions of hosts
 * then costs the same as one of ten thousand, while a crawl's busy hosts —
 * the ones a per-host pacing ramp shows on — keep their counts.
 */
export class HostCounts {
  readonly #counts = new Map<string, number>();

  /** @param capacity Most hosts held, an integer >= 1 (the caller's constant). */
  constructor(private readonly capacity: number = MAX_TRACKED_HOSTS) {}

  /** Hosts held now. */
  get size(): number {
    return this.#counts.size;
  }

  /** Counts one more request to `host` and returns its count so far. */
  next(host: string): number {
    const count = (this.#counts.get(host) ?? 0) + 1;
    this.#counts.delete(host); // re-inserted last: Map order is the recency order
    this.#counts.set(host, count);
    if (this.#counts.size > this.capacity) {
      const oldest = this.#counts.keys().next().value as string;
      this.#counts.delete(oldest);
    }
    return count;
  }
}
