import type { BreakerSnapshot } from '../algorithms/breaker-policy.js';

/**
 * What a scope has learned, as plain JSON: enough for a scope evicted and
 * re-created — in this process or another — to start where it left off.
 * Every time inside is wall-clock epoch ms (each algorithm converts its own,
 * given both clocks by the registry), durations stay durations: the state
 * means the same in every process, so a store keeps it as it is.
 */
export interface ScopeState {
  /** The concurrency algorithm's `snapshot()`, when it has one. */
  limit?: Readonly<Record<string, unknown>>;
  /** The rate algorithm's `snapshot()`, when it has one. */
  rate?: Readonly<Record<string, unknown>>;
  /** The breaker's state, when the scope has a breaker. */
  breaker?: BreakerSnapshot;
  /** Wall-clock epoch ms when the state was saved. */
  savedAt: number;
}

/**
 * Where scope state is kept between a scope's lives: a plain key-value store
 * of JSON (the state converts nothing). The in-memory default serves one
 * process; any shared store (a database, Redis) can serve many.
 */
export interface StateStore {
  /** The state last saved for `scope`, if any. */
  load(scope: string): Promise<ScopeState | undefined>;
  /** Saves `state` for `scope`, replacing what was there. */
  save(scope: string, state: ScopeState): Promise<void>;
}
