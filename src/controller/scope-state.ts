import {
  type BreakerSnapshot,
  breakerFromWall,
  breakerToWall,
} from '../algorithms/breaker-snapshot.js';
import type { ClockReading } from '../algorithms/clock-reading.js';
import type { ConcurrencyLimit, RatePolicy } from '../algorithms/sample.js';
import type { Clock } from '../clock.js';
import type { ScopeState } from '../store/store.js';

/** Both clocks of `clock`, read now: what a scope's algorithms convert their times with. */
export function readClocks(clock: Clock): ClockReading {
  return { monotonic: clock.now(), wall: clock.wallNow() };
}

/** What one scope has learned, on this process's monotonic clock. */
export interface ScopeLearning {
  limit: ConcurrencyLimit;
  rate: RatePolicy;
  breaker?: BreakerSnapshot | undefined;
}

/**
 * What a scope has learned as a store keeps it: each algorithm's snapshot,
 * every time turned into wall-clock epoch ms by the algorithm itself.
 */
export function saveScope(learning: ScopeLearning, clocks: ClockReading): ScopeState {
  const state: ScopeState = { savedAt: clocks.wall };
  const limit = learning.limit.snapshot?.(clocks);
  if (limit !== undefined) state.limit = limit;
  const rate = learning.rate.snapshot?.(clocks);
  if (rate !== undefined) state.rate = rate;
  if (learning.breaker !== undefined) state.breaker = breakerToWall(learning.breaker, clocks);
  return state;
}

/**
 * Resumes a scope's fresh algorithms from what a store held — saved in this
 * process or another — and returns the breaker state to start from, on this
 * process's monotonic clock (`clocks`, read now). Throws when an algorithm
 * rejects its state as malformed. A wall clock that reads earlier than the
 * save was set back since (time itself does not go back): it is read as the
 * moment of the save, so no pause or cooldown comes back longer than it had
 * left then (set back an hour, a 20 s pause came back as an hour's).
 */
export function restoreScope(
  fresh: Pick<ScopeLearning, 'limit' | 'rate'>,
  saved: ScopeState,
  reading: ClockReading,
): BreakerSnapshot | undefined {
  const clocks = reading.wall < saved.savedAt ? { ...reading, wall: saved.savedAt } : reading;
  if (saved.limit !== undefined) fresh.limit.restore?.(saved.limit, clocks);
  if (saved.rate !== undefined) fresh.rate.restore?.(saved.rate, clocks);
  return saved.breaker === undefined ? undefined : breakerFromWall(saved.breaker, clocks);
}
