import { type CancelTimer, type Clock, sleepOn } from '../clock.js';
import { abortReason } from '../errors.js';
import { onAbort } from '../util/abort-listener.js';

/** One caller waiting for its booked send time (local ms), and how to wake it. */
interface Booked {
  at: number;
  cancel: CancelTimer;
  readonly done: () => void;
}

/**
 * The send times this worker booked on a scope's shared schedule and still
 * waits for. A booked time is a place in the fleet's queue, not a clock
 * time: when the fleet's rate changes, Redis moves the schedule's tail by the
 * same stretch (see `learnApplyScript`) and every worker moves its bookings
 * past the same anchor with {@link BookedSends.retime} — so sends booked a
 * second ahead follow a cut or a probe at once, not a second late.
 */
export class BookedSends {
  readonly #clock: Clock;
  readonly #waiting = new Set<Booked>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Resolves at local time `at`, or later if a retime moves it; rejects with the signal's reason if it aborts first. */
  until(at: number, signal?: AbortSignal): Promise<void> {
    const clock = this.#clock;
    if (at <= clock.now()) return sleepOn(clock, 0, signal);
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const leave = () => {
        booked.cancel();
        this.#waiting.delete(booked);
        unlisten?.();
      };
      const booked: Booked = {
        at,
        cancel: () => undefined,
        done: () => {
          leave();
          resolve();
        },
      };
      this.#waiting.add(booked);
      this.#arm(booked);
      const unlisten =
        signal &&
        onAbort(signal, () => {
          leave();
          reject(abortReason(signal));
        });
    });
  }

  /**
   * The fleet's rate changed at local time `anchor` (or a pause's end): every
   * booking past it moves to `anchor + (at - anchor) × factor` (old rate ÷
   * new; 0: unpaced now, send at the anchor).
   */
  retime(anchor: number, factor: number): void {
    if (!(factor >= 0) || !Number.isFinite(factor)) return;
    for (const booked of this.#waiting) {
      if (booked.at <= anchor) continue;
      booked.at = anchor + (booked.at - anchor) * factor;
      this.#arm(booked);
    }
  }

  #arm(booked: Booked): void {
    booked.cancel();
    booked.cancel = this.#clock.setTimer(Math.max(0, booked.at - this.#clock.now()), booked.done);
  }
}
