import type { Clock } from '../clock.js';
import { type WaitOptions, WaitQueue } from '../enforce/wait-queue.js';
import type { AloneGrants, FleetGrant } from './fleet-grant.js';
import type { FleetView } from './fleet-view.js';
import { LeaseBook } from './lease-book.js';
import { ACQUIRE } from './lua/acquire.js';
import type { RedisFleet } from './redis-fleet.js';
import type { ScopeCalls } from './scope-calls.js';
import type { WakeUp } from './wake-up.js';

/** What the per-request queue of a scope works with. */
export interface QueueParts {
  readonly view: FleetView;
  readonly calls: ScopeCalls;
  readonly alone: AloneGrants;
  readonly wakeUp: WakeUp;
  /** Told when the fleet's window or rate changed. */
  readonly changed: () => void;
  /** Listens for the scope's announcements. */
  readonly subscribe: () => Promise<void>;
  /** Frees a grant not used. */
  readonly release: (grant: FleetGrant) => void;
}

/**
 * Admission of one scope's requests one by one through Redis: parks the
 * callers in one queue and asks Redis for each in turn (a lease under the
 * shared window, a send time on the shared schedule), sleeping — until a
 * timer or a Redis announcement — while the scope is full, paced or paused.
 * Holds the leases and renews those of long requests.
 */
export class RequestQueue {
  /** The leases this worker holds on the scope. */
  readonly leases: LeaseBook;
  readonly #fleet: RedisFleet;
  readonly #clock: Clock;
  readonly #parts: QueueParts;
  readonly #waiting = new WaitQueue();
  readonly #granted: FleetGrant[] = [];
  #pumping = false;
  #leaseCount = 0;

  constructor(fleet: RedisFleet, clock: Clock, parts: QueueParts) {
    this.#fleet = fleet;
    this.#clock = clock;
    this.#parts = parts;
    this.leases = new LeaseBook(clock, fleet.settings.renewMs, (ids) =>
      fleet.shared ? parts.calls.renew(ids) : Promise.resolve(),
    );
  }

  /** Callers waiting. */
  get waiting(): number {
    return this.#waiting.size;
  }

  /** Whether nothing waits or holds a lease here. */
  get idle(): boolean {
    return this.#waiting.size === 0 && this.leases.size === 0 && !this.#pumping;
  }

  /**
   * One turn in the queue: a grant, or undefined when a pause announced while
   * it waited for its send time holds it (ask again).
   */
  async admit(stage: WaitOptions): Promise<FleetGrant | undefined> {
    const parked = this.#waiting.wait(this.#clock, stage, 'fleet admission');
    void this.#pump();
    await parked;
    const grant = this.#granted.shift() ?? this.#parts.alone.grant();
    if (grant.waitMs <= 0) return grant;
    try {
      await this.#clock.sleep(grant.waitMs, stage.signal);
    } catch (error) {
      this.#parts.release(grant);
      throw error;
    }
    if (this.#parts.view.pauseUntil <= this.#clock.now()) return grant;
    this.#parts.release(grant);
    return undefined;
  }

  /** A new lease id of this worker. */
  newLeaseId(): string {
    return `${this.#fleet.settings.workerId}#${++this.#leaseCount}`;
  }

  /** Stops renewing; waiting callers are rejected with `reason`. */
  close(reason: unknown): void {
    this.#waiting.rejectAll(reason);
    this.leases.stop();
  }

  /** Admits the waiting callers through Redis, one round trip each, until none is left. */
  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    const { view, alone } = this.#parts;
    try {
      // Listening first (a wake-up must not be missed), for one call timeout at most.
      const timeout = this.#clock.sleep(this.#fleet.settings.callTimeoutMs);
      await Promise.race([this.#parts.subscribe(), timeout]);
      while (this.#waiting.size > 0) {
        const pausedMs = view.pauseUntil - this.#clock.now();
        if (!this.#fleet.shared) this.#handOut(alone.grant());
        else if (alone.adopting) await alone.adopting;
        else if (pausedMs > 0) await this.#sleep(pausedMs);
        else await this.#acquire();
      }
    } finally {
      this.#pumping = false;
    }
  }

  async #acquire(): Promise<void> {
    const { view, calls } = this.#parts;
    const leaseId = this.newLeaseId();
    const sentAt = this.#clock.now();
    const more = this.#waiting.size > 1;
    const reply = await calls.acquire(leaseId, view.version, more).catch(() => undefined);
    if (reply === undefined) return; // the fleet went local: the loop hands out local grants
    view.observeTime(sentAt, this.#clock.now(), Number(reply[2]));
    const [window, rate] = [view.window, view.rate];
    view.readNumbers(reply);
    if (view.window !== window || view.rate !== rate) this.#parts.changed();
    const waitMs = Number(reply[1]) / 1000;
    if (Number(reply[0]) !== ACQUIRE.granted) return this.#sleep(waitMs);
    this.leases.add(leaseId);
    this.#handOut({ leaseId, epoch: view.epoch, inflight: view.inflight, waitMs });
    // The window is full now and this worker queued for the next slot: wait to be woken.
    if (more && view.inflight >= view.window) await this.#sleep(this.#fleet.settings.leaseMs);
  }

  #handOut(grant: FleetGrant): void {
    this.#granted.push(grant);
    if (this.#waiting.wakeOne()) return;
    this.#granted.pop(); // the caller left meanwhile
    this.#parts.release(grant);
  }

  /** Sleeps `ms` (a lease time at most), or until an announcement from Redis wakes the scope. */
  #sleep(ms: number): Promise<void> {
    return this.#parts.wakeUp.sleep(Math.min(ms, this.#fleet.settings.leaseMs));
  }
}
