import type { AlarmAction, ConcurrencyLimit, RatePolicy, Sample } from '../algorithms/sample.js';
import type { ScopeFactory, ScopeSetup } from '../controller/registry.js';
import type { Share } from './fleet-grant.js';
import type { FleetView } from './fleet-view.js';
import { resume } from './learn-step.js';

/**
 * The numbers this worker's local controller enforces for a fleet scope. In
 * shared mode Redis admits every request on the fleet's window and schedule,
 * so locally they are the fleet's numbers: never tighter than what Redis
 * grants (and shown as they are in progress lines and metrics) — or, while
 * the worker holds a rate lease, the share it leased. In local mode (Redis out of
 * reach) the worker runs on a safe share: the fleet's algorithms, resumed
 * from the last state it heard and fed this worker's own outcomes, never above
 * the last fleet numbers, divided by the live workers; known pauses hold.
 * Nothing learned locally is written back: on rejoining, the fleet's state
 * wins.
 */
export class LocalShare {
  readonly #view: FleetView;
  readonly #setup: ScopeFactory;
  readonly #scope: string;
  readonly #alarm: (at: number, action: AlarmAction) => void;
  readonly #share: () => Share | undefined;
  #local: ScopeSetup | undefined;
  /** The limit the local controller reads. */
  readonly limit: ConcurrencyLimit;
  /** The rate policy the local controller reads. */
  readonly rate: RatePolicy;

  /** `alarm` passes a shared-mode alarm on to the fleet (local ms); `share` is the worker's rate lease. */
  constructor(
    view: FleetView,
    setup: ScopeFactory,
    scope: string,
    hooks: { alarm: (at: number, action: AlarmAction) => void; share: () => Share | undefined },
  ) {
    this.#view = view;
    this.#setup = setup;
    this.#scope = scope;
    this.#alarm = hooks.alarm;
    this.#share = hooks.share;
    const share = this;
    this.limit = {
      get limit() {
        return share.#limitNow();
      },
      onSample: (sample) => {
        share.#local?.limit.onSample(share.#rebased(sample));
        return share.#limitNow();
      },
    };
    this.rate = {
      get rate() {
        return share.#rateNow();
      },
      get pausedUntil() {
        return share.#pausedUntil();
      },
      onSample: (sample) => share.#local?.rate.onSample(share.#rebased(sample)),
      onAlarm: (at, action) => {
        if (share.#local) share.#local.rate.onAlarm?.(share.#view.toRedis(at), action);
        else share.#alarm(at, action);
      },
    };
  }

  /** Whether the worker runs this scope locally. */
  get local(): boolean {
    return this.#local !== undefined;
  }

  /** Redis is out of reach: resume the fleet's algorithms from the last state heard. */
  goLocal(redisNow: number): void {
    this.#local ??= resume(this.#setup, this.#scope, this.#view.learned, redisNow);
  }

  /** Back in the fleet: what was learned alone is dropped. */
  goShared(): void {
    this.#local = undefined;
  }

  #limitNow(): number {
    const view = this.#view;
    const share = this.#local ? undefined : this.#share();
    if (share) return share.slots;
    if (!this.#local) return Math.max(1, Math.round(view.window));
    const window = Math.min(this.#local.limit.limit, view.window);
    return Math.max(1, Math.floor(window / view.live));
  }

  #rateNow(): number {
    if (!this.#local) return this.#share()?.rate ?? this.#view.rate;
    return Math.min(this.#local.rate.rate, this.#view.rate) / this.#view.live;
  }

  #pausedUntil(): number {
    const own = this.#local ? this.#view.toLocal(this.#local.rate.pausedUntil) : 0;
    return Math.max(own, this.#view.pauseUntil);
  }

  #rebased(sample: Sample): Sample {
    const view = this.#view;
    return { ...sample, sentAt: view.toRedis(sample.sentAt), at: view.toRedis(sample.at) };
  }
}
