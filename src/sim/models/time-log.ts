/**
 * A sliding log of event times (ascending), for "how many in the last W ms".
 * Appends and expiries are amortised O(1).
 */
export class TimeLog {
  #times: number[] = [];
  #head = 0;

  /** Number of times held. */
  get size(): number {
    return this.#times.length - this.#head;
  }

  /** The `index`-th oldest time held (0 = oldest), or `undefined`. */
  nth(index: number): number | undefined {
    return index < 0 ? undefined : this.#times[this.#head + index];
  }

  /** Appends a time (not earlier than the last one). */
  push(time: number): void {
    this.#times.push(time);
  }

  /** Drops every time `<= cutoff`. */
  expire(cutoff: number): void {
    while (this.#head < this.#times.length && (this.#times[this.#head] as number) <= cutoff) {
      this.#head++;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#times.length) {
      this.#times = this.#times.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Forgets everything. */
  clear(): void {
    this.#times = [];
    this.#head = 0;
  }
}

/**
 * Counts each client's requests over the last `windowMs` (or over all time
 * when `windowMs` is Infinity, keeping just a counter).
 */
export class ClientWindow {
  readonly #windowMs: number;
  readonly #logs = new Map<string, TimeLog>();
  readonly #totals = new Map<string, number>();

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  /** Records a request of `client` at `at`; returns its count in the window, this one included. */
  record(client: string, at: number): number {
    if (this.#windowMs === Infinity) {
      const total = (this.#totals.get(client) ?? 0) + 1;
      this.#totals.set(client, total);
      return total;
    }
    const log = this.#logs.get(client) ?? new TimeLog();
    this.#logs.set(client, log);
    log.expire(at - this.#windowMs);
    log.push(at);
    return log.size;
  }

  /** Forgets a client's history. */
  forget(client: string): void {
    this.#logs.delete(client);
    this.#totals.delete(client);
  }
}
