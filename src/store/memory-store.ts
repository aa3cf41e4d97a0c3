import type { ScopeState, StateStore } from './store.js';

/**
 * The default {@link StateStore}: a map in this process. States are copied
 * through JSON on the way in and out, as a networked store would, so callers
 * cannot share mutable objects by accident.
 */
export class MemoryStore implements StateStore {
  readonly #states = new Map<string, string>();

  /** Number of scopes with saved state. */
  get size(): number {
    return this.#states.size;
  }

  async load(scope: string): Promise<ScopeState | undefined> {
    const text = this.#states.get(scope);
    return text === undefined ? undefined : (JSON.parse(text) as ScopeState);
  }

  async save(scope: string, state: ScopeState): Promise<void> {
    this.#states.set(scope, JSON.stringify(state));
  }
}
