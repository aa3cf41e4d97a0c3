/**
 * Largest magnitude a detector accepts for any measured number (ms, counts,
 * rates). Anything larger is treated as corrupt and ignored: it is ~31 700
 * years in ms, yet its square times a million samples still fits a double, so
 * sums of squares in the statistics can never overflow into `NaN`.
 */
const MAX_MAGNITUDE = 1e15;

/** Whether `value` is a finite number no larger in magnitude than {@link MAX_MAGNITUDE}. */
export function isPlausible(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= MAX_MAGNITUDE;
}

/** Whether `value` is a plausible duration: finite, not negative, not absurdly large. */
export function isDuration(value: unknown): value is number {
  return isPlausible(value) && value >= 0;
}

/** The plausible durations among `values`, in their original order. */
export function durations(values: readonly unknown[]): number[] {
  return values.filter(isDuration);
}

/** `numerator / denominator`, or `fallback` when the quotient is not finite. */
export function safeRatio(numerator: number, denominator: number, fallback = 0): number {
  const ratio = numerator / denominator;
  return Number.isFinite(ratio) ? ratio : fallback;
}

/** Largest minus smallest of `values` (0 when empty); a loop, so long arrays cannot overflow the stack. */
export function spread(values: readonly number[]): number {
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const value of values) {
    if (value < low) low = value;
    if (value > high) high = value;
  }
  return high >= low ? high - low : 0;
}
