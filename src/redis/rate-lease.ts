import type { CancelTimer, Clock } from '../clock.js';
import type { FleetGrant } from './fleet-grant.js';
import { type FleetView, rateOf } from './fleet-view.js';
import type { RedisFleet } from './redis-fleet.js';
import type { ScopeCalls } from './scope-calls.js';

/** What a rate lease lets this worker spend locally. */
export interface Share {
  /** Slots of the fleet's window. */
  readonly slots: number;
  /** Requests/s; `Infinity` when the scope is unpaced. */
  readonly rate: number;
  /** Local ms the share is sure to hold until, unless renewed. */
  readonly until: number;
}

/** A share is taken only while the fleet's window holds at least this many slots per live worker. */
const MIN_SLOTS_EACH = 4;

/**
 * This worker's rate lease on one scope (Doorman's idea, see `shareScript`).
 * Every renewal period it looks at what the worker sent on the scope: from
 * `minRequests` requests in a period on it — while the fleet's window holds
 * at least `MIN_SLOTS_EACH` slots per live worker (a narrow window split in
 * parts of one or two slots idles most of them) — takes a share of the fleet's
 * window and rate and admits locally within it — no Redis round trip per
 * request — renewing the share each period with the outcomes gathered
 * meanwhile (and, in between, every `learnEveryMs` while outcomes are
 * gathered: the learner must not lag); below that, with nothing running under the share, it gives the
 * share back and requests are admitted one by one through Redis again.
 * Congestion signals and `Retry-After` do not wait for the renewal (the scope
 * reports them at once), and a cut announced by the learner renews at once.
 */
export class RateLease {
  readonly #fleet: RedisFleet;
  readonly #calls: ScopeCalls;
  readonly #view: FleetView;
  readonly #clock: Clock;
  readonly #minRequests: number;
  readonly #held: () => number;
  readonly #waiting: () => number;
  readonly #changed: () => void;
  readonly #learn: () => void;
  #share: Share | undefined;
  #timer: CancelTimer | undefined;
  #renewing = false;
  #stopped = false;
  /** Requests sent on the scope this period (both ways), the most busy at once, whether callers queued. */
  #sent = 0;
  #peak = 0;
  #queued = false;
  /** Grants under the share: waiting for local admission, and sent. */
  readonly #pending = new Set<FleetGrant>();
  readonly #running = new Set<FleetGrant>();
  #gathered: string[] = [];
  #flush: CancelTimer | undefined;
  /** What the last renewal asked for (a flush asks the same). */
  #wanted = { slots: 0, rate: 0 };

  /**
   * `held` counts this worker's requests on the scope leased one by one,
   * `waiting` its callers waiting for such a lease; `changed` is told when the
   * share changed, `learn` when this worker was handed the learning lock.
   */
  constructor(
    fleet: RedisFleet,
    calls: ScopeCalls,
    view: FleetView,
    clock: Clock,
    hooks: {
      minRequests: number;
      held: () => number;
      waiting: () => number;
      changed: () => void;
      learn: () => void;
    },
  ) {
    this.#fleet = fleet;
    this.#calls = calls;
    this.#view = view;
    this.#clock = clock;
    this.#minRequests = hooks.minRequests;
    this.#held = hooks.held;
    this.#waiting = hooks.waiting;
    this.#changed = hooks.changed;
    this.#learn = hooks.learn;
  }

  /** The share, while it can be spent. */
  get share(): Share | undefined {
    const share = this.#share;
    if (share === undefined || !this.#fleet.shared) return undefined;
    return share.until > this.#clock.now() ? share : undefined;
  }

  /** Whether no share is held and nothing runs under one. */
  get idle(): boolean {
    return this.#share === undefined && this.#pending.size + this.#running.size === 0;
  }

  /** A grant under the share (the local controller enforces it), or undefined without one. */
  grant(): FleetGrant | undefined {
    const share = this.share;
    if (share === undefined) return undefined;
    if (this.#pending.size > 0) this.#queued = true;
    const others = Math.max(0, this.#view.inflight - share.slots);
    const inflight = others + this.#running.size + 1;
    const grant: FleetGrant = {
      leaseId: '',
      share: true,
      epoch: this.#view.epoch,
      inflight,
      waitMs: 0,
    };
    this.#pending.add(grant);
    return grant;
  }

  /** Whether `grant` (of this scope) may still be sent: one under a share only while the share holds. */
  holds(grant: FleetGrant): boolean {
    return !grant.share || this.share !== undefined;
  }

  /** A request of the scope was sent (any grant): counted as demand. */
  sent(grant: FleetGrant): void {
    if (this.#pending.delete(grant)) this.#running.add(grant);
    this.#sent++;
    this.#peak = Math.max(this.#peak, this.#busyNow());
    if (this.#waiting() > 0) this.#queued = true;
    this.#timer ??= this.#clock.setTimer(this.#fleet.settings.renewMs, () => this.#tick());
  }

  /** A grant under the share ended (reported or released). */
  ended(grant: FleetGrant): void {
    this.#pending.delete(grant);
    this.#running.delete(grant);
  }

  /** Keeps an outcome under the share for the next renewal. */
  gather(outcome: string): void {
    this.#gathered.push(outcome);
    this.#flush ??= this.#clock.setTimer(this.#fleet.settings.learnEveryMs, () => {
      this.#flush = undefined;
      if (this.#fleet.shared && this.#share !== undefined) void this.#renew(this.#wanted);
    });
  }

  /** The learner announced new numbers: a share above them is renewed at once. */
  heard(window: number, rate: number): void {
    if (this.#share === undefined) return;
    if (window < this.#view.window || rate < this.#view.rate) void this.#renew(this.#want());
  }

  /**
   * Stops renewing and gives the share back with the outcomes gathered under
   * it (best effort: the share expires anyway).
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#timer?.();
    this.#timer = undefined;
    this.#flush?.();
    this.#flush = undefined;
    const [held, holding, gathered] = [this.#share !== undefined, this.#holding(), this.#gathered];
    this.#share = undefined;
    this.#gathered = [];
    if ((!held && gathered.length === 0) || !this.#fleet.shared) return;
    const given = this.#calls.share({ slots: 0, rate: 0 }, holding, -1, gathered);
    const reply = await given.catch(() => undefined);
    if (Number(reply?.[13]) === 1) this.#learn();
  }

  #tick(): void {
    this.#timer = undefined;
    if (this.#stopped) return;
    const want = this.#want();
    const busy = this.#pending.size + this.#running.size > 0;
    const demand = this.#sent;
    this.#sent = 0;
    this.#peak = this.#busyNow();
    this.#queued = false;
    if (!this.#fleet.shared) this.#share = undefined;
    else if (this.#pays(demand) || busy) void this.#renew(want);
    else if (this.#share !== undefined || this.#gathered.length > 0)
      void this.#renew({ slots: 0, rate: 0 });
    if (demand > 0 || busy || this.#share !== undefined)
      this.#timer = this.#clock.setTimer(this.#fleet.settings.renewMs, () => this.#tick());
  }

  /** Whether a share pays: many requests per period, and a window wide enough to split. */
  #pays(demand: number): boolean {
    return demand >= this.#minRequests && this.#view.window >= MIN_SLOTS_EACH * this.#view.live;
  }

  /** What this worker holds on the scope: the share's slots, its per-request leases, what runs under the share. */
  #holding(): { share: number; leases: number; running: number } {
    return { share: this.#share?.slots ?? 0, leases: this.#held(), running: this.#running.size };
  }

  /** This worker's requests on the scope, running or waiting, either way. */
  #busyNow(): number {
    return this.#held() + this.#waiting() + this.#pending.size + this.#running.size;
  }

  /** What to ask for: all there is while callers queued, else the period's peak and pace with room. */
  #want(): { slots: number; rate: number } {
    const view = this.#view;
    const queued = this.#queued || this.#pending.size > 0;
    const slots = queued ? Math.max(view.window, this.#peak + 1) : this.#peak + 1;
    if (!Number.isFinite(view.rate)) return { slots, rate: Infinity };
    const periodS = this.#fleet.settings.renewMs / 1000;
    const rate = queued ? view.rate : Math.min(view.rate, (1.5 * this.#sent) / periodS);
    return { slots, rate: Math.max(rate, 1 / periodS) };
  }

  async #renew(want: { slots: number; rate: number }): Promise<void> {
    if (this.#renewing) return;
    this.#renewing = true;
    if (want.slots > 0) this.#wanted = want;
    const gathered = this.#gathered;
    this.#gathered = [];
    const sentAt = this.#clock.now();
    const view = this.#view;
    try {
      const reply = await this.#calls.share(want, this.#holding(), view.version, gathered);
      view.observeTime(sentAt, this.#clock.now(), Number(reply[2]));
      view.readNumbers(reply);
      const slots = Number(reply[11]);
      const until = sentAt + this.#fleet.settings.leaseMs;
      this.#share =
        slots > 0 && !this.#stopped ? { slots, rate: rateOf(reply[12]), until } : undefined;
      if (Number(reply[13]) === 1) this.#learn();
    } catch {
      // Redis out of reach: the share runs out by itself; two failures switch the fleet to local.
    } finally {
      this.#renewing = false;
      this.#changed();
    }
  }
}
