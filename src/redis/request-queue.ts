import type { CancelTimer, Clock } from '../clock.js';
import { type WaitOptions, WaitQueue } from '../enforce/wait-queue.js';
import { grantsOf } from './acquire-grants.js';
import { BookedSends } from './booked-sends.js';
import type { FleetGrant } from './fleet-grant.js';
import { Hearing } from './hearing.js';
import { LeaseBook } from './lease-book.js';
import { ACQUIRE, LEARN } from './lua/acquire.js';
import type { QueueParts } from './queue-parts.js';
import type { RedisFleet } from './redis-fleet.js';

/** Leases taken in one call at most (one per waiting caller). */
const MOST_AT_ONCE = 8;

/**
 * Admission of one scope's requests through Redis, each with its own lease:
 * parks the callers in one queue and asks Redis for the waiting ones together
 * (a lease each under the shared window, a send time each on the shared
 * schedule), sleeping — until a timer or a Redis announcement — while the
 * scope is full, paced or paused. Requests that end with nothing urgent for
 * the fleet are ended by the next such call (or, with nobody waiting, by one
 * call for all that ended meanwhile), so a busy worker pays about one round
 * trip per request. Holds the leases and renews those of long requests.
 */
export class RequestQueue {
  /** The leases this worker holds on the scope. */
  readonly leases: LeaseBook;
  readonly #fleet: RedisFleet;
  readonly #clock: Clock;
  readonly #parts: QueueParts;
  readonly #waiting = new WaitQueue();
  readonly #granted: FleetGrant[] = [];
  readonly #booked: BookedSends;
  readonly #hearing: Hearing;
  #pumping = false;
  #leaseCount = 0;
  /** Requests ended, to tell Redis with the next call: lease id, outcome ('' for none). */
  #ended: [string, string][] = [];
  #flushing: CancelTimer | undefined;
  /** An acquire call is under way (it or the next one carries what ends meanwhile). */
  #calling = false;
  /** The pump sleeps until a slot frees (a freed slot of ours wakes it). */
  #sleepingFull = false;
  /**
   * The last acquire timed out (Redis is slow): until one comes back in time,
   * ask for one lease at a time, one call timeout apart.
   */
  #strained = false;

  constructor(fleet: RedisFleet, clock: Clock, parts: QueueParts) {
    this.#fleet = fleet;
    this.#clock = clock;
    this.#parts = parts;
    this.#booked = new BookedSends(clock);
    this.#hearing = new Hearing(parts, clock, fleet.settings.callTimeoutMs);
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
    if (grant.sendAt <= 0) return grant;
    const scheduledAfter = this.#parts.view.pauseUntil; // a pause its send time already follows
    try {
      await this.#booked.until(grant.sendAt, stage.signal);
    } catch (error) {
      this.#parts.release(grant);
      throw error;
    }
    if (this.#parts.view.pauseUntil <= Math.max(scheduledAfter, this.#clock.now())) return grant;
    this.#parts.release(grant);
    return undefined;
  }

  /**
   * Ends a request's lease with the next call, its outcome ('' for none) queued for the learner:
   * the pump's next acquire when callers wait (one sleeping for a slot is woken: the slot freed
   * is its own), else one call for every request ended by then.
   */
  end(leaseId: string, outcome: string): void {
    this.#ended.push([leaseId, outcome]);
    if (this.#pumping && this.#waiting.size > 0 && (this.#calling || this.#sleepingFull)) {
      if (this.#sleepingFull) this.#parts.wakeUp.wake();
      return;
    }
    this.#flushing ??= this.#clock.setTimer(0, () => void this.#flush());
  }

  /**
   * The fleet's rate changed: send times booked past `anchor` (local ms) are
   * moved by `factor` (see {@link BookedSends.retime}), as Redis moved its schedule.
   */
  retime(anchor: number, factor: number): void {
    this.#booked.retime(anchor, factor);
  }

  /** A new lease id of this worker. */
  newLeaseId(): string {
    return `${this.#fleet.settings.workerId}#${++this.#leaseCount}`;
  }

  /**
   * Stops renewing; waiting callers are rejected with `reason`. Resolves once
   * what ended is told to Redis (best effort: unsent ends expire by themselves).
   */
  close(reason: unknown): Promise<void> {
    this.#waiting.rejectAll(reason);
    this.leases.stop();
    return this.#flush();
  }

  /** Admits the waiting callers through Redis, one round trip each, until none is left. */
  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    const { view, alone, lease } = this.#parts;
    try {
      void this.#parts.subscribe(); // with the first call, not before it (see Hearing)
      while (this.#waiting.size > 0) {
        // A pause ending within the horizon is Redis's to schedule: leases from its end.
        const pausedMs = view.pauseUntil - this.#clock.now() - this.#fleet.settings.horizonMs;
        const shared = lease.grant(); // taken since they queued: the local controller enforces it
        if (shared) this.#handOut(shared);
        else if (!this.#fleet.shared) this.#handOut(alone.grant());
        else if (alone.adopting) await alone.adopting;
        else if (pausedMs > 0) await this.#sleep(pausedMs);
        else await this.#acquire();
      }
    } finally {
      this.#pumping = false;
      if (this.#ended.length > 0)
        this.#flushing ??= this.#clock.setTimer(0, () => void this.#flush());
    }
  }

  /** Ends what ended since the last call, in one call (none while an acquire will carry them). */
  #flush(): Promise<void> {
    this.#flushing?.();
    this.#flushing = undefined;
    if (this.#calling || this.#ended.length === 0) return Promise.resolve();
    // Tried even while local: leases granted late by a Redis that stalled are given back.
    const ends = this.#ended.splice(0);
    const knownVersion = this.#parts.view.version;
    const ask = { count: 0, first: 0, more: false, knownVersion, held: 0, ends };
    return this.#parts.calls
      .acquire(ask, () => undefined)
      .then((reply) => {
        this.#took(reply);
      })
      .catch(() => undefined); // the leases expire by themselves
  }

  async #acquire(): Promise<void> {
    const { view, calls } = this.#parts;
    const count = this.#strained ? 1 : Math.min(this.#waiting.size, MOST_AT_ONCE);
    const first = this.#leaseCount + 1;
    this.#leaseCount += count;
    const ask = {
      count,
      first,
      more: this.#waiting.size > count,
      knownVersion: view.version,
      held: this.leases.size,
      ends: this.#ended.splice(0),
    };
    const [sentAt, heard] = [this.#clock.now(), this.#hearing.heard];
    this.#calling = true;
    const reply = await calls.acquire(ask, (late) => this.#late(late, first)).catch(() => {});
    this.#calling = false;
    this.#strained = reply === undefined;
    if (reply === undefined) {
      // Local now: the loop hands out local grants. Shared still: ask again, not at once.
      if (this.#fleet.shared) await this.#sleep(this.#fleet.settings.callTimeoutMs);
      return;
    }
    view.observeTime(sentAt, this.#clock.now(), Number(reply[2]));
    this.#hearing.read(reply);
    this.#took(reply);
    const waits = reply[11] as unknown[];
    // Not granted: ends carried meanwhile go first (they may free the slots), else sleep.
    if (waits.length === 0) {
      if (this.#ended.length > 0 || (!heard && (await this.#hearing.listen()))) return;
      return this.#sleep(Number(reply[1]) / 1000, Number(reply[0]) === ACQUIRE.full);
    }
    const grants = grantsOf(reply, first, this.#fleet.settings.workerId, view, this.#clock.now());
    // Deaf when it asked: booked sends go if nothing moved meanwhile; it asks again, not sleeps.
    const booked = !heard && grants.some((grant) => grant.sendAt > 0);
    const moved = booked && (await this.#hearing.listen()) && (await this.#hearing.moved());
    for (const grant of grants) moved ? this.end(grant.leaseId, '') : this.#handOut(grant);
    if (moved || (!heard && (await this.#hearing.listen()))) return;
    // The window is full now and this worker queued for the next slot: wait to be woken, or
    // for the first lease to expire (a dead worker's slots come back so, waking nobody).
    const expiryMs = Number(reply[13]) / 1000 || this.#fleet.settings.leaseMs;
    if (this.#waiting.size > 0 && view.inflight >= view.window && this.#ended.length === 0)
      await this.#sleep(Math.max(1, expiryMs), true);
  }

  /**
   * Leases granted after their call timed out: to callers still waiting while shared (else
   * they would ask again, one lease per call timeout, these slots unused), the rest ended.
   */
  #late(late: unknown[], first: number): void {
    const { workerId } = this.#fleet.settings;
    for (const grant of grantsOf(late, first, workerId, this.#parts.view, this.#clock.now()))
      if (this.#fleet.shared) this.#handOut(grant);
      else this.end(grant.leaseId, '');
    this.#took(late);
  }

  /** Whether the call of `reply` handed this worker the learning lock: it then learns now or soon (see `LEARN`). */
  #took(reply: unknown[]): void {
    const learn = Number(reply[12]);
    if (learn === LEARN.now) this.#parts.learn('now');
    else if (learn === LEARN.soon) this.#parts.learn('soon');
  }

  /** A grant to the next waiting caller (its lease held meanwhile, ended if none is left). */
  #handOut(grant: FleetGrant): void {
    if (grant.leaseId !== '') this.leases.add(grant.leaseId);
    this.#granted.push(grant);
    if (this.#waiting.wakeOne()) return;
    this.#granted.pop(); // the caller left meanwhile
    this.#parts.release(grant);
  }

  /**
   * Sleeps `ms` (a lease time at most), or until an announcement from Redis wakes the scope;
   * `full`: for a slot (a request of ours ending wakes it). What ended meanwhile is not held
   * back by a sleep for anything else.
   */
  async #sleep(ms: number, full = false): Promise<void> {
    if (!full && this.#ended.length > 0) void this.#flush();
    if (this.#parts.lease.share) return; // taken meanwhile: the waiting callers are served from it
    this.#sleepingFull = full;
    try {
      await this.#parts.wakeUp.sleep(Math.min(ms, this.#fleet.settings.leaseMs));
    } finally {
      this.#sleepingFull = false;
    }
  }
}
