/** Times at or after this (epoch ms, March 1973) read as wall-clock; earlier ones as offsets of a monotonic log. */
const EPOCH_FLOOR = 1e11;
/** The largest time a `Date` holds, ms either side of the epoch (ECMA-262 §21.4.1.1). */
const MAX_DATE_MS = 8.64e15;

/** Whether `ms` fits in a `Date` (a finite number within ±{@link MAX_DATE_MS}). */
export function isDateRange(ms: unknown): ms is number {
  return typeof ms === 'number' && Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS;
}

/**
 * Whether a log whose first record is at `start` is on the wall clock (epoch
 * ms since 1973, within the `Date` range), so its times can be shown as dates.
 */
export function isWallClock(start: number): boolean {
  return start >= EPOCH_FLOOR && start <= MAX_DATE_MS;
}

/** `hh:mm:ss` UTC of an epoch-ms time, or `-` when it is outside the `Date` range. */
export function utcTimeOfDay(ms: number): string {
  return isDateRange(ms) ? new Date(ms).toISOString().slice(11, 19) : '-';
}
