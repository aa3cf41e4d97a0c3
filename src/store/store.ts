import type { BreakerSnapshot } from '../algorithms/breaker-policy.js';

/**
 * What a scope has learned, as plain JSON-serialisable data: enough for a
 * scope evicted and re-created to start where it left off. Times inside
 * `limit`, `rate` and `breaker` are the saving process's monotonic ms: a
 * store shared between processes must rebase them (a time `t` was the wall
 * time `t - savedMonotonic + savedAt`) before another process resumes them.
 */
export interface ScopeState {
  /** The concurrency algorithm's `toJSON()`. */
  limit: Readonly<Record<string, unknown>>;
  /** The rate algorithm's `toJSON()`. */
  rate: Readonly<Record<string, unknown>>;
  /** The breaker's state, when the scope has a breaker. */
  breaker?: BreakerSnapshot;
  /** Wall-clock epoch ms when the state was saved. */
  savedAt: number;
  /** The saving process's monotonic ms at the same moment. */
  savedMonotonic: number;
}

/**
 * Where scope state is shared. The in-memory default serves one process; a
 * Redis backend implements the same contract for a fleet.
 */
export interface StateStore {
  /** The state last saved for `scope`, if any. */
  load(scope: string): Promise<ScopeState | undefined>;
  /** Saves `state` for `scope`, replacing what was there. */
  save(scope: string, state: ScopeState): Promise<void>;
}
