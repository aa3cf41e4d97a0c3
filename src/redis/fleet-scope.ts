import type { AlarmAction, Sample } from '../algorithms/sample.js';
import type { Clock } from '../clock.js';
import type { ScopeFactory } from '../controller/registry.js';
import { deadlineOf, untilDeadline, type WaitOptions } from '../enforce/wait-queue.js';
import { REACTIONS, type Signal } from '../signal.js';
import { AloneGrants, type FleetGrant, type Share } from './fleet-grant.js';
import { FleetView, storedRate } from './fleet-view.js';
import { type ScopeKeys, scopeKeys } from './keys.js';
import { encodeOutcome } from './learn-step.js';
import { Learner } from './learner.js';
import { RateLease } from './rate-lease.js';
import type { RedisFleet } from './redis-fleet.js';
import { RequestQueue } from './request-queue.js';
import { type EndReport, ScopeCalls } from './scope-calls.js';
import { ScopeChannel } from './scope-channel.js';
import { WakeUp } from './wake-up.js';

/**
 * Whether an outcome claims the congestion epoch (the first one admitted under
 * it cuts, later ones are dropped): a refusal does. A bare 5xx does not — it is
 * an overload only when such errors surge fleet-wide, which the learner judges
 * from all of them (`OverloadFilter`, through `ScopeFeedback`); noise must not
 * bump the epoch and so silence the refusal that follows.
 */
function claimsEpoch(signal: Signal): boolean {
  const speed = REACTIONS[signal.kind].speed;
  const bare = signal.kind === 'overloaded' && signal.retryAfterMs === undefined;
  return (speed === 'cut' || speed === 'cut-hard') && !bare;
}

/**
 * One scope as this worker sees the fleet: under a rate lease
 * ({@link RateLease}) it admits at once, the local controller enforcing the
 * share; otherwise one request at a time through Redis ({@link RequestQueue});
 * alone while Redis is out of reach. It reports outcomes back: at once, or
 * with the next renewal of the share.
 */
export class FleetScope {
  readonly scope: string;
  readonly keys: ScopeKeys;
  readonly view: FleetView;
  readonly #fleet: RedisFleet;
  readonly #clock: Clock;
  readonly #requests: RequestQueue;
  readonly #learner: Learner;
  readonly #lease: RateLease;
  readonly #calls: ScopeCalls;
  readonly #changed: () => void;
  /** Requests admitted alone (Redis out of reach) still running: leased when the fleet is back. */
  readonly #alone = new AloneGrants();
  readonly #wakeUp: WakeUp;
  readonly #channel: ScopeChannel;
  /** This worker's requests on the scope that were sent and have not ended. */
  readonly #sent = new Set<FleetGrant>();

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
    const fresh = setup(scope);
    this.view = new FleetView(fresh.limit.limit, fresh.rate.rate);
    const initial: [string, string] = [String(fresh.limit.limit), storedRate(fresh.rate.rate)];
    this.#calls = new ScopeCalls(fleet, this.keys, scope, initial);
    this.#learner = new Learner(fleet, this.keys, scope, setup, clock);
    this.#lease = new RateLease(fleet, this.#calls, this.view, clock, {
      minRequests: fleet.settings.rateLeaseMinRequests,
      held: () => this.#requests.leases.size,
      waiting: () => this.#requests.waiting,
      changed: () => {
        if (this.#lease.share) this.#wakeUp.wake(); // callers queued per request take the share
        changed();
      },
      learn: () => this.#learner.learn(),
      queued: () => this.#learner.queued(),
    });
    this.#requests = new RequestQueue(fleet, clock, {
      view: this.view,
      calls: this.#calls,
      alone: this.#alone,
      wakeUp: this.#wakeUp,
      lease: this.#lease,
      changed,
      subscribe: () => this.subscribe(),
      heard: () => this.#channel.heard,
      release: (grant) => this.release(grant),
      learn: (when) => (when === 'now' ? this.#learner.learn() : this.#learner.learnSoon()),
    });
    this.#channel = new ScopeChannel(fleet, this.keys.channel, {
      view: this.view,
      lease: this.#lease,
      calls: this.#calls,
      wakeUp: this.#wakeUp,
      changed,
      cut: () => this.#learner.learn(),
      nudge: () => this.#learner.nudged(),
      retime: (anchor, factor) => this.#requests.retime(this.view.toLocal(anchor), factor),
    });
  }

  /** This worker's rate lease on the scope, while it holds one. */
  get share(): Share | undefined {
    return this.#lease.share;
  }

  /** Whether nothing waits, holds a lease or learns here (the scope may be dropped). */
  get idle(): boolean {
    return this.#requests.idle && this.#lease.idle;
  }

  /** Waits for admission by the fleet (at once, with no lease, while Redis is out of reach). */
  async admit(options?: WaitOptions): Promise<FleetGrant> {
    const deadline = deadlineOf(options, this.#clock.now());
    for (;;) {
      if (!this.#fleet.shared) {
        void this.subscribe(); // a pause announced by the fleet holds this worker too
        return this.#alone.grant();
      }
      const shared = this.#lease.grant();
      if (shared) return shared;
      const stage = untilDeadline(options, deadline, this.#clock.now());
      // Undefined: a pause announced while it waited for its send time holds it too.
      const grant = await this.#requests.admit(stage);
      if (grant) return grant;
    }
  }

  /** Whether `grant` may still be sent: not one made alone once the fleet is back, nor under a share run out. */
  holds(grant: FleetGrant): boolean {
    if (grant.leaseId === '' && !grant.share) return !this.#fleet.shared;
    return this.#lease.holds(grant);
  }

  /** The request of `grant` was sent (an alone one is leased if the fleet comes back while it runs). */
  sent(grant: FleetGrant): void {
    this.#sent.add(grant);
    this.#alone.sent(grant);
    this.#lease.sent(grant);
  }

  /**
   * Reports a request's outcome to the fleet: frees its lease, pauses, queues
   * it for learning. A `Retry-After` pauses the fleet even when the request
   * was admitted alone (Redis was out of reach): it is tried all the same.
   */
  report(grant: FleetGrant, sample: Sample): void {
    const retryAfterMs = sample.signal.retryAfterMs ?? 0;
    const receivedAt = this.view.heard ? this.view.latestRedis(sample.at) : 0;
    const outstanding = this.#outstanding();
    this.#sent.delete(grant);
    if (retryAfterMs > 0) {
      this.view.pauseLocally(sample.at + retryAfterMs);
      this.#changed(); // the local controller holds it too
    }
    const alone = !grant.share && grant.leaseId === '';
    this.#alone.end(grant);
    if (grant.share) this.#lease.ended(grant);
    else if (!alone) this.#requests.leases.delete(grant.leaseId);
    if (alone || !this.#fleet.shared) {
      // The local controller learns from it; a lease held expires by itself.
      const pause = { retryAfterMs, receivedAt, congestion: false, epoch: 0, outcome: '' };
      if (retryAfterMs > 0) this.#end('', pause);
      return;
    }
    const congestion = claimsEpoch(sample.signal);
    const judged = { ...sample, outstanding };
    const text = encodeOutcome(judged, grant.inflight, (local) => this.view.toRedis(local));
    // What pauses or cuts goes at once, with the outcomes gathered before it (the learner
    // measures what was granted before a refusal); others with the share's renewal or the next call.
    const urgent = retryAfterMs > 0 || congestion;
    if (urgent) {
      const { leaseId, epoch } = grant;
      const earlier = this.#lease.gathered.take();
      this.#end(leaseId, { retryAfterMs, receivedAt, congestion, epoch, outcome: text, earlier });
    } else if (grant.share) this.#lease.gathered.add(text);
    else this.#requests.end(grant.leaseId, text);
  }

  /**
   * The scope's requests still in flight besides the one being answered (see
   * `Sample.outstanding`): this worker's that were sent and not answered (under
   * its share, on leases of their own, admitted alone; not those waiting for the
   * local pacer) and, where other workers share the scope, the
   * fleet's leases as Redis last counted them (an upper bound on theirs: their
   * outcomes are still to come). The learner reads it as a local controller
   * does: a first count taken once nothing is in flight, not at the first
   * success learned after the refusal while acceptances sent before it are
   * still to come.
   */
  #outstanding(): number {
    const others = this.view.live > 1 ? this.view.inflight : 0;
    return Math.max(0, this.#sent.size - 1) + others;
  }

  /** Frees a lease without an outcome (the request was not sent). */
  release(grant: FleetGrant): void {
    this.#sent.delete(grant);
    this.#alone.end(grant);
    if (grant.share) this.#lease.ended(grant);
    if (grant.leaseId === '' || !this.#requests.leases.delete(grant.leaseId)) return;
    if (this.#fleet.shared) this.#requests.end(grant.leaseId, '');
  }

  /** Queues a soft-throttling alarm (at local ms `at`) for the fleet's rate algorithm. */
  alarm(at: number, action: AlarmAction): void {
    if (!this.#fleet.shared) return;
    const outcome = JSON.stringify({ a: this.view.toRedis(at), alarm: action });
    this.#end('', { retryAfterMs: 0, receivedAt: 0, congestion: false, epoch: 0, outcome });
  }

  /** Listens for the scope's announcements (idempotent; retried after a failure). */
  subscribe(): Promise<void> {
    return this.#channel.subscribe();
  }

  /**
   * Back in the fleet: the requests admitted alone that still run get leases,
   * so the fleet's window counts them (admission waits for this one call).
   */
  adopt(): void {
    this.#alone.adopt(
      () => this.#requests.newLeaseId(),
      (ids) => this.#calls.adopt(ids),
      (grant) => this.#requests.leases.add(grant.leaseId),
      (grant) => this.release(grant),
    );
  }

  /**
   * Stops listening and renewing; waiting callers are rejected with `reason`.
   * Resolves once the outcomes of this worker's requests are told to Redis and,
   * if this worker holds the scope's learning lock, learned.
   */
  async close(reason: unknown): Promise<void> {
    this.#channel.close();
    this.#wakeUp.wake();
    await Promise.all([this.#requests.close(reason), this.#lease.stop()]);
    await this.#learner.finish();
  }

  #end(leaseId: string, report: EndReport): void {
    this.#calls
      .end(leaseId, report)
      .then((reply) => {
        if (Number(reply[1]) === 1) this.#learner.learn();
      })
      .catch(() => undefined); // the fleet went local; the lease expires by itself
  }
}
