/**
 * The sliding window counter (Cloudflare's rate limiting, HAProxy's `http_req_rate`, many Redis
 * limiters): counts per window on the clock, and estimates the last `windowMs` as this window's
 * count plus the previous window's, weighted by how much of it still overlaps
 * (`previous × (1 − elapsed / windowMs) + current`), and admits a request while that estimate is
 * under the limit. Two numbers per client instead of a log.
 */
export class WindowCounter {
  readonly #windowMs: number;
  readonly #phaseMs: number;
  #index = -Infinity;
  #current = 0;
  #previous = 0;

  /**
   * @param windowMs Window length, ms.
   * @param phaseMs Where windows start on the model's clock (`phaseMs + k × windowMs`), ms.
   */
  constructor(windowMs: number, phaseMs = 0) {
    this.#windowMs = windowMs;
    this.#phaseMs = phaseMs;
  }

  /** The estimated count over the `windowMs` before `at`. */
  estimate(at: number): number {
    this.#advance(at);
    return this.#previous * (1 - this.#elapsed(at)) + this.#current;
  }

  /** Whether a request at `at` is within `limit`: the estimate before it is under the limit. */
  admits(at: number, limit: number): boolean {
    return this.estimate(at) < limit;
  }

  /** Counts one request at `at`. */
  add(at: number): void {
    this.#advance(at);
    this.#current++;
  }

  /** Time from `at` until a request would be within `limit` (see {@link admits}), ms (0: now). */
  waitFor(at: number, limit: number): number {
    if (this.admits(at, limit)) return 0;
    const room = limit - this.#current;
    if (room > 0) return (1 - room / this.#previous - this.#elapsed(at)) * this.#windowMs + 1;
    const toNext = (1 - this.#elapsed(at)) * this.#windowMs;
    return toNext + Math.max(0, 1 - limit / this.#current) * this.#windowMs + 1;
  }

  #elapsed(at: number): number {
    return (at - this.#phaseMs) / this.#windowMs - this.#index;
  }

  #advance(at: number): void {
    const index = Math.floor((at - this.#phaseMs) / this.#windowMs);
    if (index === this.#index) return;
    this.#previous = index === this.#index + 1 ? this.#current : 0;
    this.#current = 0;
    this.#index = index;
  }
}
