import type { AlarmAction, Sample } from '../algorithms/sample.js';
import type { Clock } from '../clock.js';
import type { ScopeFactory } from '../controller/registry.js';
import { deadlineOf, untilDeadline, type WaitOptions, WaitQueue } from '../enforce/wait-queue.js';
import { REACTIONS } from '../signal.js';
import { AloneGrants, type FleetGrant } from './fleet-grant.js';
import { FleetView, storedRate } from './fleet-view.js';
import { type ScopeKeys, scopeKeys } from './keys.js';
import { Learner } from './learner.js';
import { LeaseBook } from './lease-book.js';
import { ACQUIRE } from './lua/acquire.js';
import type { RedisFleet } from './redis-fleet.js';
import { type EndReport, ScopeCalls } from './scope-calls.js';
import { WakeUp } from './wake-up.js';

/**
 * One scope as this worker sees the fleet: parks its callers in one queue and
 * admits them through Redis one at a time (a lease under the shared window, a
 * send time on the shared schedule), sleeping — until a timer or a Redis
 * announcement — while the scope is full, paced or paused; reports outcomes
 * back; renews the leases of long requests.
 */
export class FleetScope {
  readonly scope: string;
  readonly keys: ScopeKeys;
  readonly view: FleetView;
  readonly #fleet: RedisFleet;
  readonly #clock: Clock;
  readonly #waiting = new WaitQueue();
  readonly #granted: FleetGrant[] = [];
  readonly #leases: LeaseBook;
  readonly #learner: Learner;
  readonly #calls: ScopeCalls;
  readonly #changed: () => void;
  /** Requests admitted alone (Redis out of reach) still running: leased when the fleet is back. */
  readonly #alone = new AloneGrants();
  #pumping = false;
  readonly #wakeUp: WakeUp;
  #subscribed: Promise<void> | undefined;
  #leaseCount = 0;

  /** `changed` is told when the fleet's window or rate changed (the local controller re-reads them). */
  constructor(
    fleet: RedisFleet,
    scope: string,
    setup: ScopeFactory,
    clock: Clock,
    changed: () => void,
  ) {
    this.scope = scope;
    this.#fleet = fleet;
    this.#clock = clock;
    this.#changed = changed;
    this.#wakeUp = new WakeUp(clock);
    this.keys = scopeKeys(fleet.settings.prefix, scope);
    const fresh = setup(scope, undefined);
    this.view = new FleetView(fresh.limit.limit, fresh.rate.rate);
    const initial: [string, string] = [String(fresh.limit.limit), storedRate(fresh.rate.rate)];
    this.#calls = new ScopeCalls(fleet, this.keys, scope, initial);
    this.#leases = new LeaseBook(clock, fleet.settings.renewMs, (ids) =>
      fleet.shared ? this.#calls.renew(ids) : Promise.resolve(),
    );
    this.#learner = new Learner(fleet, this.keys, scope, setup, clock);
  }

  /** Whether nothing waits, holds a lease or learns here (the scope may be dropped). */
  get idle(): boolean {
    return this.#waiting.size === 0 && this.#leases.size === 0 && !this.#pumping;
  }

  /** Waits for admission by the fleet (at once, with no lease, while Redis is out of reach). */
  async admit(options?: WaitOptions): Promise<FleetGrant> {
    const deadline = deadlineOf(options, this.#clock.now());
    for (;;) {
      if (!this.#fleet.shared) return this.#alone.grant();
      const stage = untilDeadline(options, deadline, this.#clock.now());
      const parked = this.#waiting.wait(this.#clock, stage, 'fleet admission');
      void this.#pump();
      await parked;
      const grant = this.#granted.shift() ?? this.#alone.grant();
      if (grant.waitMs <= 0) return grant;
      try {
        await this.#clock.sleep(grant.waitMs, options?.signal);
      } catch (error) {
        this.release(grant);
        throw error;
      }
      // A pause announced while this request waited for its send time holds it too.
      if (this.view.pauseUntil <= this.#clock.now()) return grant;
      this.release(grant);
    }
  }

  /** The request of `grant` was sent (an alone one is leased if the fleet comes back while it runs). */
  sent(grant: FleetGrant): void {
    this.#alone.sent(grant);
  }

  /** Reports a request's outcome to the fleet: frees its lease, pauses, queues it for learning. */
  report(grant: FleetGrant, sample: Sample): void {
    const retryAfterMs = sample.signal.retryAfterMs ?? 0;
    if (retryAfterMs > 0) this.view.pauseLocally(sample.at + retryAfterMs);
    this.#alone.end(grant);
    if (grant.leaseId === '') return; // admitted alone: the local controller learns from it
    this.#leases.delete(grant.leaseId);
    if (!this.#fleet.shared) return; // the lease expires by itself
    const speed = REACTIONS[sample.signal.kind].speed;
    const outcome = {
      s: this.view.toRedis(sample.sentAt),
      a: this.view.toRedis(sample.at),
      i: grant.inflight,
      g: sample.signal,
    };
    this.#end(grant.leaseId, {
      retryAfterMs,
      congestion: speed === 'cut' || speed === 'cut-hard',
      epoch: grant.epoch,
      outcome: JSON.stringify(outcome),
    });
  }

  /** Frees a lease without an outcome (the request was not sent). */
  release(grant: FleetGrant): void {
    this.#alone.end(grant);
    if (grant.leaseId === '' || !this.#leases.delete(grant.leaseId)) return;
    if (this.#fleet.shared) this.#end(grant.leaseId, undefined);
  }

  /** Queues a soft-throttling alarm (at local ms `at`) for the fleet's rate algorithm. */
  alarm(at: number, action: AlarmAction): void {
    if (!this.#fleet.shared) return;
    const outcome = JSON.stringify({ a: this.view.toRedis(at), alarm: action });
    this.#end('', { retryAfterMs: 0, congestion: false, epoch: 0, outcome });
  }

  /** Listens for the scope's announcements (idempotent; retried after a failure). */
  subscribe(): Promise<void> {
    this.#subscribed ??= this.#fleet.link
      .subscribe(this.keys.channel, (message) => this.#hear(message))
      .catch(() => {
        this.#subscribed = undefined;
      });
    return this.#subscribed;
  }

  /**
   * Back in the fleet: the requests admitted alone that still run get leases,
   * so the fleet's window counts them (admission waits for this one call).
   */
  adopt(): void {
    this.#alone.adopt(
      () => this.#newLeaseId(),
      (ids) => this.#calls.adopt(ids),
      (grant) => this.#leases.add(grant.leaseId),
      (grant) => this.release(grant),
    );
  }

  /** Stops listening and renewing; waiting callers are rejected with `reason`. */
  close(reason: unknown): void {
    this.#waiting.rejectAll(reason);
    this.#leases.stop();
    this.#learner.stop();
    this.#wakeUp.wake();
    if (this.#subscribed) this.#fleet.link.unsubscribe(this.keys.channel).catch(() => undefined);
  }

  /** Admits the waiting callers through Redis, one round trip each, until none is left. */
  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      await this.#settle(this.subscribe());
      while (this.#waiting.size > 0) {
        const pausedMs = this.view.pauseUntil - this.#clock.now();
        if (!this.#fleet.shared) this.#handOut(this.#alone.grant());
        else if (this.#alone.adopting) await this.#alone.adopting;
        else if (pausedMs > 0) await this.#sleep(pausedMs);
        else await this.#acquire();
      }
    } finally {
      this.#pumping = false;
    }
  }

  async #acquire(): Promise<void> {
    const leaseId = this.#newLeaseId();
    const sentAt = this.#clock.now();
    const more = this.#waiting.size > 1;
    const reply = await this.#calls
      .acquire(leaseId, this.view.version, more)
      .catch(() => undefined);
    if (reply === undefined) return; // the fleet went local: the loop hands out local grants
    this.view.observeTime(sentAt, this.#clock.now(), Number(reply[2]));
    const [window, rate] = [this.view.window, this.view.rate];
    this.view.readNumbers(reply);
    if (this.view.window !== window || this.view.rate !== rate) this.#changed();
    const waitMs = Number(reply[1]) / 1000;
    if (Number(reply[0]) !== ACQUIRE.granted) return this.#sleep(waitMs);
    this.#leases.add(leaseId);
    this.#handOut({ leaseId, epoch: this.view.epoch, inflight: this.view.inflight, waitMs });
    // The window is full now and this worker queued for the next slot: wait to be woken.
    if (more && this.view.inflight >= this.view.window)
      await this.#sleep(this.#fleet.settings.leaseMs);
  }

  #newLeaseId(): string {
    return `${this.#fleet.settings.workerId}#${++this.#leaseCount}`;
  }

  #handOut(grant: FleetGrant): void {
    this.#granted.push(grant);
    if (this.#waiting.wakeOne()) return;
    this.#granted.pop(); // the caller left meanwhile
    this.release(grant);
  }

  /** Sleeps `ms` (a lease time at most), or until an announcement from Redis wakes the scope. */
  #sleep(ms: number): Promise<void> {
    return this.#wakeUp.sleep(Math.min(ms, this.#fleet.settings.leaseMs));
  }

  /**
   * `p<ms>`: a pause until then (Redis ms); `r<worker>`: a slot freed for that
   * worker (passed on when this one no longer waits); `s`: new numbers.
   */
  #hear(message: string): void {
    if (message.startsWith('p')) this.view.pauseFromRedis(Number(message.slice(1)));
    else if (message.startsWith('r')) {
      if (message.slice(1) !== this.#fleet.settings.workerId) return;
      if (!this.#wakeUp.sleeping) this.#calls.passOn().catch(() => undefined);
    }
    this.#wakeUp.wake();
  }

  #end(leaseId: string, report: EndReport | undefined): void {
    this.#calls
      .end(leaseId, report)
      .then((reply) => {
        if (Number(reply[1]) === 1) this.#learner.learn();
      })
      .catch(() => undefined); // the fleet went local; the lease expires by itself
  }

  /** Waits for `promise` at most one call timeout. */
  #settle(promise: Promise<void>): Promise<void> {
    return Promise.race([promise, this.#clock.sleep(this.#fleet.settings.callTimeoutMs)]);
  }
}
