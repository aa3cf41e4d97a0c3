import type { CancelTimer, Clock } from '../clock.js';
import type { FleetGrant, Share } from './fleet-grant.js';
import { type FleetView, rateOf } from './fleet-view.js';
import { Gathered } from './gathered.js';
import type { RedisFleet } from './redis-fleet.js';
import type { ScopeCalls } from './scope-calls.js';

/** What a renewal asks for; `all`: all there is (callers queued). */
type Want = { readonly slots: number; readonly rate: number; readonly all: boolean };

/** What a rate lease asks of its scope (`changed`: the share changed; `learn`: this worker got the learning lock; `queued`: a renewal queued outcomes). */
interface LeaseHooks {
  readonly minRequests: number;
  /** This worker's requests on the scope leased one by one, and its callers waiting for such a lease. */
  held(): number;
  waiting(): number;
  changed(): void;
  learn(): void;
  queued(): void;
}

/** Asked for to give a share back. */
const NOTHING: Want = { slots: 0, rate: 0, all: false };
/** A rate that asks for all the fleet's: cut to what it has when Redis renews the share. */
const ALL_RATE = 1e9;

/** A share is taken only while the fleet's window holds at least this many slots per live worker. */
const MIN_SLOTS_EACH = 4;

/**
 * This worker's rate lease on one scope (Doorman's idea, see `shareScript`).
 * Every renewal period it looks at what the worker sent on the scope: from
 * `minRequests` requests in a period on it — while the fleet's window holds
 * at least `MIN_SLOTS_EACH` slots per live worker (a narrow window split in
 * parts of one or two slots idles most of them) — takes a share of the fleet's
 * window and rate and admits locally within it — no Redis round trip per
 * request — renewing it each period and every `learnEveryMs` while outcomes
 * are gathered; below that, with nothing running under it, it gives the share
 * back (admission per request again). On a paced scope only a worker alone
 * there takes one. Refusals and `Retry-After` are reported at once; numbers
 * the learner announces are followed at once.
 */
export class RateLease {
  readonly #fleet: RedisFleet;
  readonly #calls: ScopeCalls;
  readonly #view: FleetView;
  readonly #clock: Clock;
  readonly #hooks: LeaseHooks;
  #share: Share | undefined;
  #timer: CancelTimer | undefined;
  #renewing = false;
  /** A flush was asked while a renewal ran (it carries only what was gathered before it). */
  #flushAfter = false;
  #stopped = false;
  /** Requests sent on the scope this period (both ways), the most busy at once, whether callers queued. */
  #sent = 0;
  #peak = 0;
  #queued = false;
  /** Grants under the share: waiting for local admission, and sent. */
  readonly #pending = new Set<FleetGrant>();
  readonly #running = new Set<FleetGrant>();
  /** Outcomes under the share waiting for the learner (a renewal or an urgent report carries them). */
  readonly gathered: Gathered;
  /** What the last renewal asked for: a flush asks the same (all there is now, if it asked all). */
  #wanted: Want = NOTHING;

  constructor(
    fleet: RedisFleet,
    calls: ScopeCalls,
    view: FleetView,
    clock: Clock,
    hooks: LeaseHooks,
  ) {
    this.#fleet = fleet;
    this.#calls = calls;
    this.#view = view;
    this.#clock = clock;
    this.#hooks = hooks;
    this.gathered = new Gathered(clock, fleet.settings.learnEveryMs, () => this.flush());
  }

  /** Sends the outcomes gathered under the share now, with a renewal (a cut is about to be learned). */
  flush(): void {
    if (this.#renewing) this.#flushAfter = true;
    else if (this.gathered.size > 0 && this.#share !== undefined && this.#fleet.shared)
      void this.#renew(this.#asked());
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
      sendAt: 0,
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
    if (this.#hooks.waiting() > 0) this.#queued = true;
    this.#timer ??= this.#clock.setTimer(this.#fleet.settings.renewMs, () => this.#tick());
  }

  /** A grant under the share ended (reported or released). */
  ended(grant: FleetGrant): void {
    this.#pending.delete(grant);
    this.#running.delete(grant);
  }

  /** The learner announced new numbers: a share above them is renewed at once, one that asked all when they grew. */
  heard(window: number, rate: number): void {
    if (this.#share === undefined) return;
    const view = this.#view;
    const fell = window < view.window || rate < view.rate;
    if (fell || (this.#wanted.all && (window > view.window || rate > view.rate)))
      void this.#renew(this.#wanted.all ? this.#all(window) : this.#asked());
  }

  /** Another worker asks per request on this paced scope: renewed at once, the share is given up (see `shareScript`). */
  yieldPace(): void {
    if (this.#share !== undefined) void this.#renew(this.#asked());
  }

  /** Stops renewing and gives the share back with the outcomes gathered under it (best effort). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#timer?.();
    this.#timer = undefined;
    const [held, holding] = [this.#share !== undefined, this.#holding()];
    const gathered = this.gathered.take();
    this.#share = undefined;
    if ((!held && gathered.length === 0) || !this.#fleet.shared) return;
    const reply = await this.#calls.share(NOTHING, holding, -1, gathered).catch(() => undefined);
    if (Number(reply?.[13]) === 1) this.#hooks.learn();
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
    else if (this.#share !== undefined || this.gathered.size > 0) void this.#renew(NOTHING);
    if (demand > 0 || busy || this.#share !== undefined)
      this.#timer = this.#clock.setTimer(this.#fleet.settings.renewMs, () => this.#tick());
  }

  /** Whether a share pays: many requests per period, a window wide enough to split, no other worker on a paced scope (Redis's rule). */
  #pays(demand: number): boolean {
    const view = this.#view;
    const wide = view.window >= MIN_SLOTS_EACH * view.live;
    const alone = view.live <= 1 || !Number.isFinite(view.rate);
    return demand >= this.#hooks.minRequests && wide && alone;
  }

  /** What this worker holds on the scope: the share's slots, its per-request leases, what runs under the share. */
  #holding(): { share: number; leases: number; running: number } {
    const share = this.#share?.slots ?? 0;
    return { share, leases: this.#hooks.held(), running: this.#running.size };
  }

  /** This worker's requests on the scope, running or waiting, either way. */
  #busyNow(): number {
    return this.#hooks.held() + this.#hooks.waiting() + this.#pending.size + this.#running.size;
  }

  /** What to ask for: all there is while callers queued, else the period's peak and pace with room. */
  #want(): Want {
    const view = this.#view;
    if (this.#queued || this.#pending.size > 0) return this.#all(view.window);
    const slots = this.#peak + 1;
    if (!Number.isFinite(view.rate)) return { slots, rate: Infinity, all: false };
    const periodS = this.#fleet.settings.renewMs / 1000;
    const rate = Math.min(view.rate, (1.5 * this.#sent) / periodS);
    return { slots, rate: Math.max(rate, 1 / periodS), all: false };
  }

  /** What the last renewal asked, again (cut to the fleet's numbers by Redis): mid-period, the count of requests is partial. */
  #asked(): Want {
    return this.#wanted.all ? this.#all(this.#view.window) : this.#wanted;
  }

  /** All there is of a fleet with `window` (at least the period's peak of slots), at whatever rate it has by then. */
  #all(window: number): Want {
    return { slots: Math.max(window, this.#peak + 1), rate: ALL_RATE, all: true };
  }

  async #renew(want: Want): Promise<void> {
    if (this.#renewing) return;
    this.#renewing = true;
    if (want.slots > 0) this.#wanted = want;
    const gathered = this.gathered.take();
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
      if (Number(reply[13]) === 1) this.#hooks.learn();
      else if (gathered.length > 0) this.#hooks.queued();
    } catch {
      // Redis out of reach: the share runs out by itself; two failures switch the fleet to local.
    } finally {
      this.#renewing = false;
      this.#hooks.changed();
      if (this.#flushAfter) {
        this.#flushAfter = false;
        this.flush();
      }
    }
  }
}
