import { type Clock, systemClock } from '../clock.js';
import type { Permit } from '../controller/permit.js';
import {
  type ScopeFactory,
  ScopeRegistry,
  type ScopeRegistryOptions,
} from '../controller/registry.js';
import { deadlineOf, untilDeadline, type WaitOptions } from '../enforce/wait-queue.js';
import { InvalidOptionError } from '../errors.js';
import type { EventSink } from '../events/event.js';
import type { StateStore } from '../store/store.js';
import type { FleetGrant } from './fleet-grant.js';
import { FleetPermit } from './fleet-permit.js';
import type { FleetScope } from './fleet-scope.js';
import { FleetScopes } from './fleet-scopes.js';
import type { FleetMode, RedisFleet } from './redis-fleet.js';

/** The learned state lives in Redis: nothing to keep locally for an evicted scope. */
const NO_STORE: StateStore = {
  load: async () => undefined,
  save: async () => undefined,
};

/**
 * A {@link ScopeRegistry} whose scopes are shared by a fleet: a request is
 * admitted by Redis first (a lease under the fleet's window, a send time on the
 * fleet's schedule, no send while the fleet is paused), then by the local
 * controller, which keeps what stays per worker — the breaker, the retry
 * budget, the latency guard, the events — and enforces a safe share when Redis
 * is out of reach. Outcomes go to both.
 */
export class FleetRegistry extends ScopeRegistry {
  readonly #scopes: FleetScopes;
  readonly #clock: Clock;
  readonly #events: EventSink | undefined;
  readonly #unwatch: () => void;

  constructor(fleet: RedisFleet, options: ScopeRegistryOptions) {
    if (options.store !== undefined)
      throw InvalidOptionError.invalid(
        'ScopeRegistry',
        'store',
        options.store,
        'left unset with a fleet (the learned state lives in Redis)',
      );
    const clock = options.clock ?? systemClock;
    const scopes = new FleetScopes(fleet, options.setup, clock, (scope) => this?.get(scope));
    const setup: ScopeFactory = (scope) => scopes.setup(scope);
    super({ ...options, setup, store: NO_STORE });
    this.#scopes = scopes;
    this.#clock = clock;
    this.#events = options.events;
    this.#unwatch = fleet.watch((mode, reason) => this.#switched(mode, reason));
  }

  override async admit(scopes: string | readonly string[], options?: WaitOptions): Promise<Permit> {
    const keys = typeof scopes === 'string' ? [scopes] : [...new Set(scopes)].sort();
    const deadline = deadlineOf(options, this.#clock.now());
    const stage = () => untilDeadline(options, deadline, this.#clock.now());
    for (;;) {
      const grants: (readonly [FleetScope, FleetGrant])[] = [];
      try {
        for (const key of keys) {
          const scope = this.#scopes.open(key);
          grants.push([scope, await scope.admit(stage())]);
        }
        const local = await super.admit(scopes, stage());
        // Granted alone but the fleet came back, or under a share that ran out, while it
        // waited locally: back to the fleet's queue.
        if (grants.some(([scope, grant]) => !scope.holds(grant))) {
          local.release();
          for (const [scope, grant] of grants) scope.release(grant);
          continue;
        }
        for (const [scope, grant] of grants) scope.sent(grant);
        return new FleetPermit(local, grants, this.#clock);
      } catch (error) {
        for (const [scope, grant] of grants) scope.release(grant);
        throw error;
      }
    }
  }

  override async sweep(): Promise<number> {
    const evicted = await super.sweep();
    this.#scopes.sweep();
    return evicted;
  }

  override async close(): Promise<void> {
    this.#unwatch();
    const closing = super.close(); // aborts closedSignal at once
    await Promise.all([closing, this.#scopes.close(this.closedSignal.reason)]);
  }

  #switched(mode: FleetMode, reason: string): void {
    for (const scope of this.#scopes.switch(mode)) {
      const controller = this.get(scope);
      if (controller) this.#events?.(controller.describe('fleet', `${mode}: ${reason}`));
    }
  }
}
