/** The three latency percentiles ratewise reports, in ms. */
export interface Percentiles {
  /** Median. */
  p50: number;
  /** 95th percentile. */
  p95: number;
  /** 99th percentile. */
  p99: number;
}

/**
 * The `q`-quantile of ascending `sorted` values by the nearest-rank method:
 * the smallest value with at least `q` of the data at or below it (so the p95
 * of 100 values is the 95th smallest, and of 10 values the largest). No
 * interpolation: every reported percentile is a latency that was observed.
 * `undefined` for an empty array.
 */
export function quantileSorted(sorted: readonly number[], q: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.ceil(Math.min(1, Math.max(0, q)) * sorted.length);
  return sorted[Math.max(0, rank - 1)];
}

/** Ascending copy of `values`. */
export function sortedCopy(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** p50/p95/p99 of ascending `sorted` values, or `undefined` when empty. */
export function percentilesOfSorted(sorted: readonly number[]): Percentiles | undefined {
  const p50 = quantileSorted(sorted, 0.5);
  const p95 = quantileSorted(sorted, 0.95);
  const p99 = quantileSorted(sorted, 0.99);
  if (p50 === undefined || p95 === undefined || p99 === undefined) return undefined;
  return { p50, p95, p99 };
}

/** p50/p95/p99 of `values` in any order, or `undefined` when empty. */
export function percentiles(values: readonly number[]): Percentiles | undefined {
  return percentilesOfSorted(sortedCopy(values));
}

/** Median of `values` in any order (nearest rank, so an observed value), or 0 when empty. */
export function median(values: readonly number[]): number {
  return quantileSorted(sortedCopy(values), 0.5) ?? 0;
}
