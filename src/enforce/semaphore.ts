import { type Clock, systemClock } from '../clock.js';
import { ReleaseError } from '../errors.js';
import { numberOption } from '../options.js';
import { type WaitOptions, WaitQueue } from './wait-queue.js';

const RESOLVED = Promise.resolve();

/**
 * A counting semaphore whose limit can change at run time.
 *
 * - FIFO: a new caller never overtakes a parked one.
 * - Shrinking the limit never cancels work in flight; new callers wait until
 *   enough permits are released to get below the new limit.
 * - Growing the limit, or a release, hands free permits to parked callers at
 *   once, so no wake-up is lost.
 */
export class Semaphore {
  #limit: number;
  #inflight = 0;
  readonly #clock: Clock;
  #queue: WaitQueue | undefined;

  /**
   * @param limit - permits available at once, an integer >= 1.
   * @param clock - used only for acquire timeouts. @default systemClock
   */
  constructor(limit: number, clock: Clock = systemClock) {
    this.#limit = checkLimit(limit);
    this.#clock = clock;
  }

  /** Permits allowed at once. */
  get limit(): number {
    return this.#limit;
  }

  /** Permits currently held. May exceed `limit` right after a shrink. */
  get inflight(): number {
    return this.#inflight;
  }

  /** Callers parked waiting for a permit. */
  get queued(): number {
    return this.#queue?.size ?? 0;
  }

  /** Changes the limit; growing wakes parked callers, shrinking cancels nothing. */
  setLimit(limit: number): void {
    this.#limit = checkLimit(limit);
    this.#drain();
  }

  /** Takes a permit if one is free and nobody is waiting ahead; never waits. */
  tryAcquire(): boolean {
    if (this.#inflight >= this.#limit || this.queued > 0) return false;
    this.#inflight++;
    return true;
  }

  /**
   * Takes a permit at once even beyond the limit or ahead of parked callers —
   * for the breaker's single half-open probe, which must not queue behind
   * traffic the breaker is holding back.
   */
  forceAcquire(): void {
    this.#inflight++;
  }

  /** Takes a permit, waiting in FIFO order if none is free. */
  acquire(options?: WaitOptions): Promise<void> {
    if (this.tryAcquire()) return RESOLVED;
    this.#queue ??= new WaitQueue();
    return this.#queue.wait(this.#clock, options, 'Semaphore.acquire');
  }

  /** Rejects every parked caller with `reason`; permits held stay held. */
  close(reason: unknown): void {
    this.#queue?.rejectAll(reason);
  }

  /** Returns a permit. Throws if none is held — that is a bug in the caller. */
  release(): void {
    if (this.#inflight === 0) {
      throw new ReleaseError('Semaphore.release: no permit is held');
    }
    this.#inflight--;
    this.#drain();
  }

  /** Hands free permits to parked callers, oldest first. */
  #drain(): void {
    const queue = this.#queue;
    if (queue === undefined) return;
    while (this.#inflight < this.#limit && queue.wakeOne()) this.#inflight++;
  }
}

function checkLimit(limit: number): number {
  return numberOption('Semaphore', 'limit', limit, 1, { min: 1, integer: true });
}
