import { type CancelTimer, type Clock, sleepOn } from './clock.js';
import { number } from './option-rules.js';
import { defineOptions, type OptionsOf } from './option-spec.js';
import { MinHeap } from './util/heap.js';

interface Entry {
  callback: () => void;
  cancelled: boolean;
}

/** Lets every promise reaction queued so far run (one macrotask turn; no time passes). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

const readOptions = defineOptions('VirtualClock', {
  /**
   * Initial monotonic time in ms.
   * @default 0
   */
  start: number(0),
  /**
   * Wall-clock epoch ms that corresponds to `start`.
   * @default Date.UTC(2026, 0, 1)
   */
  wallStart: number(Date.UTC(2026, 0, 1)),
});

/** Options for {@link VirtualClock}. */
export interface VirtualClockOptions extends OptionsOf<typeof readOptions> {}

/**
 * A clock whose time moves only when told to. Timers fire in due order (FIFO
 * for equal times), and promise reactions settle after each one, so code that
 * awaits `sleep` behaves exactly as on the real clock — without waiting.
 * Used by tests and by the simulator.
 */
export class VirtualClock implements Clock {
  #now: number;
  readonly #wallOffset: number;
  readonly #timers = new MinHeap<Entry>();
  #live = 0;

  constructor(options: VirtualClockOptions = {}) {
    const { start, wallStart } = readOptions(options);
    this.#now = start;
    this.#wallOffset = wallStart - this.#now;
  }

  /** Current virtual monotonic time in ms. */
  now(): number {
    return this.#now;
  }

  /** Current virtual wall-clock time in epoch ms. */
  wallNow(): number {
    return this.#now + this.#wallOffset;
  }

  /** Number of timers scheduled and not yet fired or cancelled. */
  get pendingTimers(): number {
    return this.#live;
  }

  /** Schedules `callback` at `now + ms` of virtual time. */
  setTimer(ms: number, callback: () => void): CancelTimer {
    const entry: Entry = { callback, cancelled: false };
    this.#timers.push(this.#now + Math.max(0, ms), entry);
    this.#live++;
    return () => {
      if (entry.cancelled) return;
      entry.cancelled = true;
      this.#live--;
    };
  }

  /** Resolves after `ms` of virtual time. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): Promise<void> {
    return this.advanceTo(this.#now + ms);
  }

  /** Moves time forward to `time`, firing every timer that falls due on the way. */
  async advanceTo(time: number): Promise<void> {
    await settle();
    while (this.#fireNext(time)) await settle();
    if (time > this.#now) this.#now = time;
    await settle();
  }

  /**
   * Fires timers in order until none are left or the next one lies beyond
   * `until` (default: no bound). Returns the virtual time reached.
   */
  async run(until = Infinity): Promise<number> {
    await settle();
    while (this.#fireNext(until)) await settle();
    return this.#now;
  }

  /** Fires the next live timer due at or before `until`; false when there is none. */
  #fireNext(until: number): boolean {
    for (;;) {
      const due = this.#timers.peekKey();
      if (due === undefined || due > until) return false;
      const entry = this.#timers.pop() as Entry;
      if (entry.cancelled) continue;
      entry.cancelled = true;
      this.#live--;
      if (due > this.#now) this.#now = due;
      entry.callback();
      return true;
    }
  }
}
