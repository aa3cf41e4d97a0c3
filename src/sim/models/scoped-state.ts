import type { ModelRequest } from './model.js';

/**
 * Whom a rate limit applies to: the whole server (one shared budget, the
 * hidden-capacity case) or each client separately (per IP, session or key).
 */
export type LimitScope = 'server' | 'client';

/** Every {@link LimitScope}, for option validation and the catalog. */
export const LIMIT_SCOPES: readonly LimitScope[] = ['server', 'client'];

/** Holds one state object per scope key, created on first use. */
export class ScopedState<S> {
  readonly #scope: LimitScope;
  readonly #create: () => S;
  readonly #states = new Map<string, S>();

  constructor(scope: LimitScope, create: () => S) {
    this.#scope = scope;
    this.#create = create;
  }

  /** The state the request's scope key maps to. */
  of(request: ModelRequest): S {
    const key = this.#scope === 'client' ? request.client : '';
    let state = this.#states.get(key);
    if (state === undefined) {
      state = this.#create();
      this.#states.set(key, state);
    }
    return state;
  }
}
