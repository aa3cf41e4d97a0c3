/** What a mock server has seen, as served by `GET /__stats` and `stats()`. */
export interface MockServerStats {
  /** The model's name. */
  model: string;
  /** Requests handed to the model (the stats endpoint itself is not counted). */
  arrivals: number;
  /** Replies decided, by status code. */
  byStatus: Record<string, number>;
  /** Requests arrived and not yet finished. */
  inFlight: number;
  /** Largest `inFlight` seen. */
  maxInFlight: number;
  /** Requests whose client went away before the reply completed. */
  aborted: number;
  /** Model time of the first arrival, ms since the server started; `null` before any. */
  firstArrivalMs: number | null;
  /** Model time of the latest arrival, ms since the server started; `null` before any. */
  lastArrivalMs: number | null;
  /** Model time now, ms since the server started. */
  uptimeMs: number;
  /** The model's nominal capacity now, requests/s; `null` when unbounded. */
  capacity: number | null;
}

/** Accumulates {@link MockServerStats}; pure bookkeeping, no I/O. */
export class ServerStatsRecorder {
  #arrivals = 0;
  readonly #byStatus: Record<string, number> = {};
  #inFlight = 0;
  #maxInFlight = 0;
  #aborted = 0;
  #first: number | null = null;
  #last: number | null = null;

  /** A request arrived at model time `at`. */
  arrive(at: number): void {
    this.#arrivals++;
    this.#inFlight++;
    this.#maxInFlight = Math.max(this.#maxInFlight, this.#inFlight);
    this.#first ??= at;
    this.#last = at;
  }

  /** The model decided `status` for a request. */
  decided(status: number): void {
    const key = String(status);
    this.#byStatus[key] = (this.#byStatus[key] ?? 0) + 1;
  }

  /** A request finished; `aborted` when its client went away first. */
  leave(aborted: boolean): void {
    this.#inFlight--;
    if (aborted) this.#aborted++;
  }

  /** A snapshot, completed with the model's name, the time and its capacity. */
  snapshot(model: string, uptimeMs: number, capacity: number | undefined): MockServerStats {
    return {
      model,
      arrivals: this.#arrivals,
      byStatus: { ...this.#byStatus },
      inFlight: this.#inFlight,
      maxInFlight: this.#maxInFlight,
      aborted: this.#aborted,
      firstArrivalMs: this.#first,
      lastArrivalMs: this.#last,
      uptimeMs,
      capacity: capacity ?? null,
    };
  }
}
