/** Bucket upper bounds in seconds, 1 ms to 2 min: round trips and admission waits alike. */
export const SECONDS_BUCKETS: readonly number[] = [
  0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120,
];

/**
 * A cumulative-on-read histogram: one array increment per observation
 * (cheaper than a metrics library's per-call label hashing on the request path).
 */
export class Histogram {
  /** Upper bounds, ascending. */
  readonly bounds: readonly number[];
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  readonly counts: number[];
  count = 0;
  sum = 0;

  constructor(bounds: readonly number[] = SECONDS_BUCKETS) {
    this.bounds = bounds;
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  /** Records one value. */
  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > (this.bounds[i] as number)) i++;
    this.counts[i] = (this.counts[i] as number) + 1;
    this.count++;
    this.sum += value;
  }

  /** Observations at or below each bound, then the total (Prometheus `le` buckets, `+Inf` last). */
  cumulative(): number[] {
    let running = 0;
    return this.counts.map((n) => {
      running += n;
      return running;
    });
  }
}
