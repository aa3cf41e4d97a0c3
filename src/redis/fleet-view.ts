/**
 * What one worker last heard of a scope's fleet state, and the worker's
 * estimate of Redis's clock. The fleet's times are Redis times (`TIME`), so
 * workers with skewed clocks agree; each worker converts with its own offset,
 * measured on its round trips (the fastest one is the most exact).
 */
export class FleetView {
  /** The fleet's concurrency window. */
  window: number;
  /** The fleet's rate in requests/s; `Infinity` when unpaced. */
  rate: number;
  /** The congestion epoch: a refusal cuts only if admitted under the current one. */
  epoch = 0;
  /** Version of the learned state (`-1`: never heard). */
  version = -1;
  /** The learned state at `version`, as stored (JSON), or '' before any learning. */
  learned = '';
  /** Workers seen recently on this scope, this one included. */
  live = 1;
  /** Requests holding a lease fleet-wide, at the last reply. */
  inflight = 0;
  /** Local monotonic ms before which nothing may be sent (a pause the fleet knows of). */
  pauseUntil = 0;
  #offset: number | undefined;
  /** What the offset can be at most and at least, by the round trip it was measured on. */
  #offsetAtMost = 0;
  #offsetAtLeast = 0;
  #bestRttMs = Infinity;
  #bestAt = -Infinity;

  constructor(window: number, rate: number) {
    this.window = window;
    this.rate = rate;
  }

  /** Whether this worker has heard from Redis at least once. */
  get heard(): boolean {
    return this.#offset !== undefined;
  }

  /**
   * Updates the clock offset from one round trip: sent and received on the
   * local clock, `redisMs` read by Redis in between. A slower round trip than
   * the best of the last 30 s is a worse estimate and is ignored — unless the
   * estimate held is impossible by this one (a clock stepped).
   */
  observeTime(sentAt: number, receivedAt: number, redisMs: number): void {
    const rtt = receivedAt - sentAt;
    const held = this.#offset ?? Number.NaN;
    const possible = held >= redisMs - receivedAt - 1 && held <= redisMs - sentAt + 1;
    const recent = receivedAt - this.#bestAt < 30_000;
    if (possible && rtt > this.#bestRttMs * 1.5 + 1 && recent) return;
    this.#bestRttMs = rtt;
    this.#bestAt = receivedAt;
    this.#offset = redisMs - (sentAt + receivedAt) / 2;
    // Redis read its clock (whole ms, rounded down) between sending and receiving.
    this.#offsetAtMost = redisMs + 1 - sentAt;
    this.#offsetAtLeast = redisMs - receivedAt;
  }

  /** A local monotonic time as Redis time (ms). */
  toRedis(local: number): number {
    return local + (this.#offset ?? 0);
  }

  /**
   * A local monotonic time as the latest Redis time it can be (ms): a pause
   * counted from it is never shorter than asked, whatever the estimate's error
   * (at most the round trip it was measured on).
   */
  latestRedis(local: number): number {
    return local + (this.#offset === undefined ? 0 : this.#offsetAtMost);
  }

  /** A Redis time as local monotonic time (ms). */
  toLocal(redis: number): number {
    return redis - (this.#offset ?? 0);
  }

  /**
   * A Redis time as the latest local time it can be (ms): what waits for it
   * is never early, whatever the estimate's error (late by at most the best
   * round trip's time).
   */
  latestLocal(redis: number): number {
    return redis - (this.#offset === undefined ? 0 : this.#offsetAtLeast);
  }

  /** A pause learned from Redis (a reply or an announcement), in Redis ms: held until the latest local time it can end. */
  pauseFromRedis(redisUntil: number): void {
    if (redisUntil > 0) this.pauseLocally(this.latestLocal(redisUntil));
  }

  /** A pause known locally (this worker's own Retry-After), in local ms. */
  pauseLocally(until: number): void {
    if (until > this.pauseUntil) this.pauseUntil = until;
  }

  /** Reads the shared numbers of an acquire reply (see `acquireScript`). */
  readNumbers(reply: readonly unknown[]): void {
    this.version = Number(reply[3]);
    this.epoch = Number(reply[4]);
    this.live = Math.max(1, Number(reply[5]));
    this.inflight = Number(reply[6]);
    this.window = Math.max(1, Number(reply[7]));
    this.rate = rateOf(reply[8]);
    this.pauseFromRedis(Number(reply[9]));
    const learned = String(reply[10] ?? '');
    if (learned !== '') this.learned = learned;
  }
}

/** A stored rate: a decimal string, `0` for unpaced. */
export function rateOf(stored: unknown): number {
  const rate = Number(stored);
  return Number.isFinite(rate) && rate > 0 ? rate : Infinity;
}

/** A rate as stored: `0` for unpaced. */
export function storedRate(rate: number): string {
  return Number.isFinite(rate) && rate > 0 ? String(rate) : '0';
}
