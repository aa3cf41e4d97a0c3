import type { Clock } from '../clock.js';
import type { ScopeFactory, ScopeSetup } from '../controller/registry.js';
import type { ScopeController } from '../controller/scope-controller.js';
import { FleetScope } from './fleet-scope.js';
import { LocalShare } from './local-share.js';
import type { FleetMode, RedisFleet } from './redis-fleet.js';

interface Entry {
  fleet: FleetScope;
  share: LocalShare;
}

/**
 * The fleet side of a registry's scopes: one {@link FleetScope} and one
 * {@link LocalShare} per scope, created on first use and dropped once the
 * local controller is evicted and nothing is left in flight.
 */
export class FleetScopes {
  readonly #entries = new Map<string, Entry>();
  readonly #fleet: RedisFleet;
  readonly #setup: ScopeFactory;
  readonly #clock: Clock;
  readonly #controllerOf: (scope: string) => ScopeController | undefined;

  /** `controllerOf` finds the live local controller of a scope (to refresh its numbers). */
  constructor(
    fleet: RedisFleet,
    setup: ScopeFactory,
    clock: Clock,
    controllerOf: (scope: string) => ScopeController | undefined,
  ) {
    this.#fleet = fleet;
    this.#setup = setup;
    this.#clock = clock;
    this.#controllerOf = controllerOf;
  }

  /** The fleet side of `scope`, created if needed. */
  open(scope: string): FleetScope {
    return this.#entry(scope).fleet;
  }

  /** The local controller's setup: the client's, with the fleet's numbers in place of its algorithms. */
  setup(scope: string): ScopeSetup {
    const { share } = this.#entry(scope);
    return { ...this.#setup(scope), limit: share.limit, rate: share.rate };
  }

  /** Switches every scope to `mode`; returns the scopes switched. */
  switch(mode: FleetMode): string[] {
    for (const [scope, entry] of this.#entries) {
      this.#apply(entry, mode);
      this.#controllerOf(scope)?.refresh();
    }
    return [...this.#entries.keys()];
  }

  /** Drops scopes whose local controller was evicted and which hold nothing. */
  sweep(): void {
    for (const [scope, entry] of this.#entries) {
      if (!entry.fleet.idle || this.#controllerOf(scope) !== undefined) continue;
      void entry.fleet.close(undefined);
      this.#entries.delete(scope);
    }
  }

  /** Closes every scope (see {@link FleetScope.close}); callers still waiting are rejected with `reason`. */
  async close(reason: unknown): Promise<void> {
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(entries.map((entry) => entry.fleet.close(reason)));
  }

  #entry(scope: string): Entry {
    let entry = this.#entries.get(scope);
    if (entry) return entry;
    const changed = () => this.#controllerOf(scope)?.refresh();
    const fleet = new FleetScope(this.#fleet, scope, this.#setup, this.#clock, changed);
    const share = new LocalShare(fleet.view, this.#setup, scope, {
      alarm: (at, action) => fleet.alarm(at, action),
      share: () => fleet.share,
    });
    entry = { fleet, share };
    this.#entries.set(scope, entry);
    this.#apply(entry, this.#fleet.shared ? 'shared' : 'local');
    return entry;
  }

  #apply(entry: Entry, mode: FleetMode): void {
    if (mode === 'shared') {
      entry.share.goShared();
      entry.fleet.adopt();
      void entry.fleet.subscribe();
    } else {
      entry.share.goLocal(entry.fleet.view.toRedis(this.#clock.now()));
    }
  }
}
