import { type FleetView, rateOf } from './fleet-view.js';
import type { RateLease } from './rate-lease.js';
import type { RedisFleet } from './redis-fleet.js';
import type { ScopeCalls } from './scope-calls.js';
import type { WakeUp } from './wake-up.js';

/** What a scope's messages act on. */
export interface ChannelParts {
  readonly view: FleetView;
  readonly lease: RateLease;
  readonly calls: ScopeCalls;
  readonly wakeUp: WakeUp;
  readonly changed: () => void;
  /** A cut is waiting for this worker, holding the learning lock, to learn it (see `Learner.cut`). */
  readonly cut: () => void;
  /** Outcomes were queued while this worker holds the learning lock and stopped looking: look again. */
  readonly nudge: () => void;
  /** Moves this worker's booked send times past `anchor` (Redis ms) by `factor` (see `BookedSends.retime`). */
  readonly retime: (anchor: number, factor: number) => void;
}

/**
 * One scope's sharded pub/sub channel as this worker hears it:
 * `p<until> <now>` a pause until then (Redis ms; `now` when announced, for a
 * worker that has no estimate of Redis's clock yet); `r<worker>` a slot freed for that
 * worker (passed on when this one no longer waits); `s<window> <rate>` new
 * numbers, with `<anchor> <factor>` when the rate's change moved the
 * schedule's tail (bookings past the anchor, Redis ms, stretch by the
 * factor); `l<worker>` a cut for that worker, the learner, to learn (every
 * worker sends the outcomes its share gathered first, for the learner to read with it);
 * `n<worker>` outcomes for that worker, the learner, which stopped looking;
 * `y` another worker asks per request on this paced scope (a share here gives way).
 * A pause, a slot freed for this worker and a wider window wake
 * the scope's sleeping admission.
 */
export class ScopeChannel {
  readonly #fleet: RedisFleet;
  readonly #channel: string;
  readonly #parts: ChannelParts;
  #subscribed: Promise<void> | undefined;
  #heard = false;

  constructor(fleet: RedisFleet, channel: string, parts: ChannelParts) {
    this.#fleet = fleet;
    this.#channel = channel;
    this.#parts = parts;
  }

  /** Whether the subscription is confirmed: a message published from now on is heard. */
  get heard(): boolean {
    return this.#heard;
  }

  /** Listens (idempotent; retried after a failure). */
  subscribe(): Promise<void> {
    this.#subscribed ??= this.#fleet.link
      .subscribe(this.#channel, (message) => this.#hear(message))
      .then(
        () => {
          this.#heard = true;
        },
        () => {
          this.#subscribed = undefined;
        },
      );
    return this.#subscribed;
  }

  /** Stops listening. */
  close(): void {
    this.#heard = false;
    if (this.#subscribed) this.#fleet.link.unsubscribe(this.#channel).catch(() => undefined);
  }

  #hear(message: string): void {
    const { view, lease, calls, wakeUp, changed, cut, nudge, retime } = this.#parts;
    const me = this.#fleet.settings.workerId;
    if (message.startsWith('p')) {
      const [until, announcedAt] = message.slice(1).split(' ').map(Number);
      if (view.heard || !announcedAt) view.pauseFromRedis(Number(until));
      else view.pauseLocally(this.#fleet.settings.clock.now() + Number(until) - announcedAt);
      changed();
    } else if (message.startsWith('s')) {
      const [window, rate, anchor, factor] = message.slice(1).split(' ');
      const wider = Number(window) > view.window;
      lease.heard(Number(window), rateOf(rate));
      if (anchor !== undefined) {
        // The bookings moved: the local controller paces at the new rate too.
        retime(Number(anchor), Number(factor));
        view.rate = rateOf(rate);
        changed();
      }
      // Only a wider window is worth an admission call (a paced sleeper wakes by itself).
      if (!wider) return;
    } else if (message.startsWith('l')) {
      lease.flush();
      if (message.slice(1) === me) cut();
      return;
    } else if (message === 'y') {
      lease.yieldPace();
      return;
    } else if (message.startsWith('n')) {
      if (message.slice(1) === me) nudge();
      return;
    } else if (message.startsWith('r')) {
      if (message.slice(1) !== me) return;
      if (!wakeUp.sleeping) calls.passOn().catch(() => undefined);
    }
    wakeUp.wake();
  }
}
