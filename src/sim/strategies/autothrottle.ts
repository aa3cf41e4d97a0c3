import type { Clock } from '../../clock.js';
import { runWorkers, type Strategy, takingTurns } from './strategy.js';

const START_DELAY_MS = 5000;
const MAX_DELAY_MS = 60_000;
const TARGET_CONCURRENCY = 8;

/**
 * Scrapy's AutoThrottle: one download slot per host whose delay between
 * request starts tracks latency / target concurrency (averaged with the old
 * delay; a non-200 response may only raise it), with at most the ceiling of
 * requests in flight.
 */
class AutoThrottleSlot {
  delayMs = START_DELAY_MS;
  #lastStart = -Infinity;
  #active = 0;
  readonly #clock: Clock;
  readonly #max: number;
  #waiters: (() => void)[] = [];

  constructor(clock: Clock, max: number) {
    this.#clock = clock;
    this.#max = max;
  }

  async acquire(stop: AbortSignal): Promise<void> {
    while (this.#active >= this.#max) {
      if (stop.aborted) throw stop.reason;
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
    this.#active++;
    try {
      // Starts are spaced by the delay in force when each start comes due, as Scrapy's slot does.
      for (let wait = this.#waitMs(); wait > 0; wait = this.#waitMs()) {
        await this.#clock.sleep(wait, stop);
      }
    } catch (error) {
      this.#active--; // the run ended while this caller waited for its start
      throw error;
    }
    this.#lastStart = this.#clock.now();
  }

  #waitMs(): number {
    return this.#lastStart + this.delayMs - this.#clock.now();
  }

  /** Releases parked callers at the end of the run. */
  shutdown(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }

  release(status: number, latencyMs: number): void {
    this.#active--;
    this.#waiters.shift()?.();
    const target = latencyMs / TARGET_CONCURRENCY;
    const next = Math.min(MAX_DELAY_MS, Math.max(target, (this.delayMs + target) / 2));
    if (status !== 200 && next <= this.delayMs) return;
    this.delayMs = next;
  }
}

/** A latency-delay controller in the style of Scrapy's AutoThrottle. */
export const autoThrottle: Strategy = {
  name: 'autothrottle',
  description: `Scrapy AutoThrottle: start delay 5 s, delay → latency / ${TARGET_CONCURRENCY} (target concurrency), ceiling in flight`,
  run(context) {
    const slot = new AutoThrottleSlot(context.clock, context.maxConcurrency);
    context.work.stop.addEventListener('abort', () => slot.shutdown(), { once: true });
    return runWorkers(context, context.workers, (path) =>
      takingTurns(
        context,
        path,
        () => slot.acquire(context.work.stop),
        (exchange) => slot.release(exchange?.status ?? 0, exchange?.timings.ttfbMs ?? slot.delayMs),
      ),
    );
  },
};
