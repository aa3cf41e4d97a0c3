import type { Clock } from '../clock.js';

/**
 * How long Redis has been silent as far as this worker can tell: the time
 * since Redis last answered (on time or late), less the time this worker was
 * not running to hear it — its timers ran late. On a busy machine a worker
 * descheduled for a second hears nothing from anyone for that second, and
 * Redis, descheduled with it, answers only once both run again: that is the
 * machine's scheduling, not Redis gone.
 */
export class Silence {
  readonly #clock: Clock;
  /** Local ms of Redis's latest reply. */
  #heardAt: number;
  /** The worker's own delays since then, ms (overlapping ones counted once). */
  #ownDelayMs = 0;
  /** The end of the latest own delay counted. */
  #countedUntil: number;

  constructor(clock: Clock) {
    this.#clock = clock;
    this.#heardAt = clock.now();
    this.#countedUntil = this.#heardAt;
  }

  /** Redis answered now. */
  heard(): void {
    this.#heardAt = this.#clock.now();
    this.#countedUntil = this.#heardAt;
    this.#ownDelayMs = 0;
  }

  /** A timer due at local ms `due` ran at `ran`: the worker was not running in between. */
  timerRan(due: number, ran: number): void {
    const from = Math.max(due, this.#countedUntil);
    if (ran <= from) return;
    this.#ownDelayMs += ran - from;
    this.#countedUntil = ran;
  }

  /** Since Redis last answered, ms. */
  get sinceHeardMs(): number {
    return this.#clock.now() - this.#heardAt;
  }

  /** Of those, the ms this worker itself was not running. */
  get ownDelayMs(): number {
    return this.#ownDelayMs;
  }

  /** Ms Redis has not answered while this worker was running to hear it. */
  get ms(): number {
    return this.sinceHeardMs - this.#ownDelayMs;
  }
}
