import type { ControlEvent } from '../events/event.js';

/** The controller's state summed over every scope, at one instant. */
export interface ControlState {
  /** Sum of the scopes' concurrency limits. */
  limit: number;
  /** Requests in flight, all scopes. */
  inflight: number;
  /** Requests queued for admission, all scopes. */
  queued: number;
  /** Sum of the paced scopes' rates, req/s; `null` when no scope is paced. */
  rate: number | null;
}

interface ScopeState {
  limit: number;
  inflight: number;
  queued: number;
  rate: number | null;
}

/**
 * Folds control events of many scopes into one crawl-wide state: each
 * scope's latest limit, in-flight, queued and rate, summed. A scope leaves
 * the sum when it is evicted, so memory follows the live scopes. Events
 * missing a limit or in-flight count are ignored.
 */
export class ControlTotals {
  readonly #scopes = new Map<string, ScopeState>();
  readonly #total = { limit: 0, inflight: 0, queued: 0, rate: 0, paced: 0 };

  /** Applies one event; returns the new totals, or `undefined` when the event carried no state. */
  apply(event: ControlEvent): ControlState | undefined {
    if (!Number.isFinite(event.limit) || !Number.isFinite(event.inflight)) return undefined;
    this.#remove(event.scope);
    if (event.type !== 'evict') {
      const queued = Number.isFinite(event.queued) ? event.queued : 0;
      const state = { limit: event.limit, inflight: event.inflight, queued, rate: event.rate };
      this.#scopes.set(event.scope, state);
      this.#add(state, 1);
    }
    return this.current;
  }

  /** The current totals. */
  get current(): ControlState {
    const t = this.#total;
    const rate = t.paced > 0 ? t.rate : null;
    return { limit: t.limit, inflight: t.inflight, queued: t.queued, rate };
  }

  #remove(scope: string): void {
    const previous = this.#scopes.get(scope);
    if (!previous) return;
    this.#add(previous, -1);
    this.#scopes.delete(scope);
  }

  #add(state: ScopeState, sign: 1 | -1): void {
    const t = this.#total;
    t.limit += sign * state.limit;
    t.inflight += sign * state.inflight;
    t.queued += sign * state.queued;
    if (state.rate !== null) {
      t.rate += sign * state.rate;
      t.paced += sign;
    }
  }
}
