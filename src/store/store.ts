import type { BreakerSnapshot } from '../algorithms/breaker-policy.js';

/**
 * What a scope has learned, as plain JSON-serialisable data: enough for
 * another worker (or a restarted one) to start where this one left off.
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
