import type { BreakerSnapshot } from '../algorithms/breaker-policy.js';
import type { Clock } from '../clock.js';
import { deadlineOf, untilDeadline, type WaitOptions } from '../enforce/wait-queue.js';
import { ClosedError, InvalidOptionError } from '../errors.js';
import { admissionChannel, traceAdmission } from '../events/diagnostics.js';
import type { EventSink } from '../events/event.js';
import type { Random } from '../random.js';
import { MemoryStore } from '../store/memory-store.js';
import type { ScopeState, StateStore } from '../store/store.js';
import { CompositePermit } from './composite-permit.js';
import type { Permit } from './permit.js';
import { ScopeController } from './scope-controller.js';
import type { ScopePermit } from './scope-permit.js';
import {
  readScopeRegistryOptions,
  type ScopeFactory,
  type ScopeRegistryOptions,
  type ScopeSetup,
} from './scope-setup.js';
import { readClocks, restoreScope } from './scope-state.js';

export type { ScopeFactory, ScopeRegistryOptions, ScopeSetup } from './scope-setup.js';

/**
 * All the scopes of one client: creates a {@link ScopeController} the first
 * time a scope is seen (resuming from the store), admits requests that need
 * several scopes at once, and evicts idle scopes so that many hosts stay cheap.
 */
export class ScopeRegistry {
  readonly #setup: ScopeFactory;
  readonly #clock: Clock;
  readonly #random: Random;
  readonly #events: EventSink | undefined;
  readonly #store: StateStore;
  readonly #idleMs: number;
  readonly #maxPauseWaitMs: number;
  readonly #scopes = new Map<string, ScopeController>();
  readonly #opening = new Map<string, Promise<ScopeController>>();
  readonly #closing = new AbortController();
  #lastSweep: number;

  constructor(options: ScopeRegistryOptions) {
    const settings = readScopeRegistryOptions(options);
    this.#setup = settings.setup;
    this.#clock = settings.clock;
    this.#random = settings.random;
    this.#events = settings.events;
    this.#store = settings.store ?? new MemoryStore({ clock: this.#clock });
    this.#idleMs = settings.idleMs;
    this.#maxPauseWaitMs = settings.maxPauseWaitMs;
    this.#lastSweep = this.#clock.now();
  }

  /** Number of live scopes. */
  get size(): number {
    return this.#scopes.size;
  }

  /**
   * Aborts when {@link close} is called, with the `ERR_RATEWISE_CLOSED` error:
   * waits outside the controllers (a retry's backoff) end with it.
   */
  get closedSignal(): AbortSignal {
    return this.#closing.signal;
  }

  /** The live controller of `scope`, if there is one. */
  get(scope: string): ScopeController | undefined {
    return this.#scopes.get(scope);
  }

  /** Every live controller. */
  controllers(): IterableIterator<ScopeController> {
    return this.#scopes.values();
  }

  /** The controller of `scope`, created (and resumed from the store) if needed. */
  open(scope: string): Promise<ScopeController> {
    if (this.#closing.signal.aborted) return Promise.reject(closedAfter());
    const live = this.#scopes.get(scope);
    if (live) return Promise.resolve(live);
    let opening = this.#opening.get(scope);
    if (!opening) {
      opening = this.#create(scope);
      this.#opening.set(scope, opening);
    }
    return opening;
  }

  /**
   * Admits a request by every scope in `scopes` (in a fixed order, so two
   * requests needing the same scopes never deadlock); the permit reports to all.
   */
  admit(scopes: string | readonly string[], options?: WaitOptions): Promise<Permit> {
    if (!admissionChannel.hasSubscribers) return this.#admit(scopes, options);
    const message = { registry: this, scopes, startedAt: this.#clock.now() };
    return traceAdmission(message, () => this.#admit(scopes, options));
  }

  async #admit(scopes: string | readonly string[], options?: WaitOptions): Promise<Permit> {
    if (this.#closing.signal.aborted) throw closedAfter();
    this.#maybeSweep();
    // A live controller is admitted on synchronously, so a sweep cannot evict it in between.
    if (typeof scopes === 'string')
      return (this.#scopes.get(scopes) ?? (await this.open(scopes))).admit(options);
    const keys = [...new Set(scopes)].sort();
    if (keys.length === 0)
      throw InvalidOptionError.invalid(
        'ScopeRegistry.admit',
        'scopes',
        scopes,
        'at least one scope key',
      );
    const deadline = deadlineOf(options, this.#clock.now());
    const permits: ScopePermit[] = [];
    try {
      for (const key of keys) {
        const controller = this.#scopes.get(key) ?? (await this.open(key));
        permits.push(
          (await controller.admit(
            untilDeadline(options, deadline, this.#clock.now()),
          )) as ScopePermit,
        );
      }
    } catch (error) {
      for (const permit of permits) permit.release();
      throw error;
    }
    if (permits.length === 1) return permits[0] as Permit;
    // The request goes now: time spent queued at one scope is not a round trip at another.
    const now = this.#clock.now();
    for (const permit of permits) permit.restamp(now);
    return new CompositePermit(permits);
  }

  /** Evicts every scope idle for `idleMs` or longer, saving its state. Returns how many. */
  async sweep(): Promise<number> {
    const now = this.#clock.now();
    this.#lastSweep = now;
    const saves: Promise<void>[] = [];
    for (const [scope, controller] of this.#scopes) {
      if (!controller.idle || now - controller.lastUsed < this.#idleMs) continue;
      this.#scopes.delete(scope);
      saves.push(this.#store.save(scope, controller.snapshot()));
      this.#events?.(
        controller.describe('evict', `idle ${Math.round(now - controller.lastUsed)} ms`),
      );
    }
    await Promise.all(saves);
    return saves.length;
  }

  /**
   * Shuts every scope down: pending timers are cancelled (nothing keeps the
   * process alive), callers still waiting for admission are rejected with a
   * `ClosedError` (code `ERR_RATEWISE_CLOSED`), and so is every later
   * admission. Then each scope's state is saved. Calling it again does nothing.
   */
  async close(): Promise<void> {
    if (this.#closing.signal.aborted) return;
    this.#closing.abort(
      new ClosedError('ScopeRegistry: closed while the request waited for admission or a retry'),
    );
    for (const controller of this.#scopes.values()) controller.close(this.#closing.signal.reason);
    await this.persist().catch(() => undefined);
    this.#scopes.clear();
  }

  /** Saves every live scope's state to the store. */
  async persist(): Promise<void> {
    await Promise.all([...this.#scopes].map(([scope, c]) => this.#store.save(scope, c.snapshot())));
  }

  async #create(scope: string): Promise<ScopeController> {
    try {
      const saved = await this.#store.load(scope);
      if (this.#closing.signal.aborted) throw closedAfter();
      const { setup, breakerState } = this.#resume(scope, saved);
      const options = { clock: this.#clock, random: this.#random, ...setup };
      const controller = new ScopeController(scope, {
        ...options,
        ...(this.#events ? { events: this.#events } : {}),
        ...(breakerState ? { breakerState } : {}),
        maxPauseWaitMs: this.#maxPauseWaitMs,
      });
      this.#scopes.set(scope, controller);
      return controller;
    } finally {
      this.#opening.delete(scope);
    }
  }

  /** The scope's algorithms resumed from its saved state — or fresh, when that is unusable. */
  #resume(scope: string, saved: ScopeState | undefined): ResumedScope {
    const setup = this.#setup(scope);
    if (saved === undefined) return { setup, breakerState: undefined };
    try {
      return { setup, breakerState: restoreScope(setup, saved, readClocks(this.#clock)) };
    } catch {
      // A corrupt entry in a shared store must not lock the scope out for good: relearn.
      return { setup: this.#setup(scope), breakerState: undefined };
    }
  }

  #maybeSweep(): void {
    if (this.#clock.now() - this.#lastSweep < this.#idleMs / 2) return;
    // A failed save only costs the evicted scope what it learned; it must not fail a request.
    this.sweep().catch(() => undefined);
  }
}

/** A new scope's setup, and the breaker state it resumes from (on this process's clock). */
interface ResumedScope {
  setup: ScopeSetup;
  breakerState: BreakerSnapshot | undefined;
}

function closedAfter(): ClosedError {
  return new ClosedError('ScopeRegistry: closed; no request is admitted after close()');
}
