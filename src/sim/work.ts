import { setMaxListeners } from 'node:events';
import type { Clock } from '../clock.js';

/** How much work a run offers. */
export interface Workload {
  /** Concurrent callers offering work (the demand), e.g. 40 workers. */
  workers: number;
  /** Stop handing out work after this many ms (in-flight work finishes). */
  durationMs: number;
  /** A batch of this many URLs; unbounded when absent. */
  urls?: number;
}

/**
 * Hands out the paths of a run to its workers until the batch is done or
 * the time is up; `stop` (an AbortSignal) fires at the deadline so that
 * callers parked in admission leave too.
 */
export class WorkQueue {
  readonly #clock: Clock;
  readonly #deadline: number;
  readonly #total: number;
  readonly #abort = new AbortController();
  #issued = 0;
  #completed = 0;
  /** Monotonic ms at which the last URL of a batch completed. */
  finishedAt: number | undefined;

  constructor(workload: Workload, clock: Clock) {
    this.#clock = clock;
    this.#deadline = clock.now() + workload.durationMs;
    this.#total = workload.urls ?? Infinity;
    // Every parked worker listens to `stop`; that is expected, not a leak.
    setMaxListeners(0, this.#abort.signal);
    const cancel = clock.setTimer(workload.durationMs, () =>
      this.#abort.abort(new Error('run over')),
    );
    this.#abort.signal.addEventListener('abort', cancel, { once: true });
  }

  /** Aborts when the run is over (deadline reached or batch complete). */
  get stop(): AbortSignal {
    return this.#abort.signal;
  }

  /** Ends the run now (e.g. a strategy caught in a loop); workers leave as at the deadline. */
  abort(reason: Error): void {
    if (!this.#abort.signal.aborted) this.#abort.abort(reason);
  }

  /** URLs completed (successfully or given up). */
  get completed(): number {
    return this.#completed;
  }

  /** The next path to fetch, or undefined when the run is over. */
  next(): string | undefined {
    if (this.#abort.signal.aborted || this.#clock.now() >= this.#deadline) return undefined;
    if (this.#issued >= this.#total) return undefined;
    return `/item/${this.#issued++}`;
  }

  /** Marks one URL as finished; ends the run when a batch is complete. */
  complete(): void {
    this.#completed++;
    if (this.#completed >= this.#total && !this.#abort.signal.aborted) {
      this.finishedAt = this.#clock.now();
      this.#abort.abort(new Error('batch complete'));
    }
  }
}
