import { NEVER } from './congestion.js';

/** Serialisable state of a {@link WindowedRate}. */
export type WindowedRateState = {
  /** Event counts per bucket, a ring indexed by bucket number modulo its length. */
  counts: number[];
  /** Number of the newest bucket (`floor(at / bucketMs)`), {@link NEVER} when empty. */
  head: number;
};

/**
 * Counts events (by their time) over a sliding window of fixed buckets, for an
 * events-per-second estimate in constant memory: a handful of numbers per
 * scope, whatever the traffic. Events older than the window fall out a bucket
 * at a time, so the window is accurate to one bucket.
 */
export class WindowedRate {
  readonly #bucketMs: number;
  readonly #counts: number[];
  #head = NEVER;

  /**
   * @param windowMs how far back events count.
   * @param buckets how many slices the window is cut into (its resolution).
   */
  constructor(windowMs: number, buckets: number) {
    this.#bucketMs = windowMs / buckets;
    this.#counts = new Array<number>(buckets).fill(0);
  }

  /** Counts `amount` events at time `at`; events older than the window are ignored. */
  record(at: number, amount = 1): void {
    const bucket = Math.floor(at / this.#bucketMs);
    if (!Number.isFinite(bucket)) return;
    if (bucket > this.#head) this.#advance(bucket);
    if (bucket <= this.#head - this.#counts.length) return;
    const slot = this.#slot(bucket);
    this.#counts[slot] = (this.#counts[slot] ?? 0) + amount;
  }

  /**
   * Counts events spread evenly over [from, to) at `perSecond`, bucket by
   * bucket (the part older than the window is dropped).
   */
  spread(from: number, to: number, perSecond: number): void {
    let start = Math.max(from, this.windowStart(to));
    while (start < to) {
      const end = Math.min(to, (Math.floor(start / this.#bucketMs) + 1) * this.#bucketMs);
      this.record(start, ((end - start) * perSecond) / 1000);
      start = end;
    }
  }

  /** Start of the time the window covers at `at`: its oldest bucket's start. */
  windowStart(at: number): number {
    const bucket = Math.floor(at / this.#bucketMs);
    return (bucket - this.#counts.length + 1) * this.#bucketMs;
  }

  /** Events in the window at time `at` (those recorded in its buckets). */
  count(at: number): number {
    const newest = Math.min(Math.floor(at / this.#bucketMs), this.#head);
    const oldest = Math.max(
      Math.floor(at / this.#bucketMs) - this.#counts.length + 1,
      this.#head - this.#counts.length + 1,
    );
    let total = 0;
    for (let bucket = oldest; bucket <= newest; bucket++)
      total += this.#counts[this.#slot(bucket)] ?? 0;
    return total;
  }

  /** Plain state. */
  toJSON(): WindowedRateState {
    return { counts: [...this.#counts], head: this.#head };
  }

  /** Restores state from {@link WindowedRate.toJSON}; counts of another length are ignored. */
  restore(state: WindowedRateState): void {
    if (state.counts.length !== this.#counts.length) return;
    this.#counts.splice(0, state.counts.length, ...state.counts);
    this.#head = Math.floor(state.head);
  }

  /** Moves the head to `bucket`, emptying the buckets it passes. */
  #advance(bucket: number): void {
    const steps = Math.min(bucket - this.#head, this.#counts.length);
    for (let i = 0; i < steps; i++) this.#counts[this.#slot(bucket - i)] = 0;
    this.#head = bucket;
  }

  #slot(bucket: number): number {
    const n = this.#counts.length;
    return ((bucket % n) + n) % n;
  }
}
