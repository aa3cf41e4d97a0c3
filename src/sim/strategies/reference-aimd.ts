import type { CancelTimer, Clock } from '../../clock.js';
import { parseRetryAfter } from '../../headers/retry-after.js';
import { uniform } from '../../random.js';
import { MAX_ATTEMPTS, runWorkers, type Strategy, tryExchange } from './strategy.js';

/**
 * The limiter published with the demo server (docs/server-models.md), as published — +1 per 2xx,
 * halve per 429, floor 1, ceiling 32, start 8, breaker after 6 consecutive 429s open for max(15 s,
 * Retry-After) — with its one fatal bug fixed: parked workers are woken by a timer when the
 * breaker's cooldown ends.
 */
class ReferenceLimiter {
  limit = 8;
  readonly #ceiling: number;
  #active = 0;
  #streak = 0;
  #closedUntil = 0;
  #waiters: (() => void)[] = [];
  #cancelWake: CancelTimer | undefined;
  readonly #clock: Clock;

  constructor(clock: Clock, ceiling: number) {
    this.#clock = clock;
    this.#ceiling = Math.min(32, ceiling);
    this.limit = Math.min(this.limit, this.#ceiling);
  }

  async slot(stop: AbortSignal): Promise<void> {
    while (this.#clock.now() < this.#closedUntil || this.#active >= this.limit) {
      if (stop.aborted) throw stop.reason;
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
    this.#active++;
  }

  release(): void {
    this.#active--;
    this.#notifyAll();
  }

  onSuccess(): void {
    this.#streak = 0;
    this.limit = Math.min(this.#ceiling, this.limit + 1);
    this.#notifyAll();
  }

  on429(retryAfterS: number): void {
    this.#streak++;
    this.limit = Math.max(1, Math.floor(this.limit / 2));
    if (this.#streak >= 6) {
      this.#closedUntil = this.#clock.now() + Math.max(15, retryAfterS) * 1000;
      this.#streak = 0;
      // The fix: a wait that depends on time is woken by a timer.
      this.#cancelWake?.();
      this.#cancelWake = this.#clock.setTimer(this.#closedUntil - this.#clock.now(), () =>
        this.#notifyAll(),
      );
    }
    this.#notifyAll();
  }

  /** Wakes every parked worker (the condition's notify_all). */
  #notifyAll(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** Releases parked workers at the end of the run. */
  shutdown(): void {
    this.#cancelWake?.();
    this.#notifyAll();
  }
}

/** The demo server's published AIMD limiter and worker loop (docs/server-models.md), lost wake-up fixed. */
export const referenceAimd: Strategy = {
  name: 'reference-aimd',
  description:
    "the demo server's limiter as published: +1 per 2xx, halve per 429, breaker 6 × 429 → 15 s (lost wake-up fixed)",
  async run(context) {
    const limiter = new ReferenceLimiter(context.clock, context.maxConcurrency);
    const { clock, work, random } = context;
    work.stop.addEventListener('abort', () => limiter.shutdown(), { once: true });
    await runWorkers(context, context.workers, async (path) => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        await limiter.slot(work.stop);
        const exchange = await tryExchange(context, path);
        limiter.release();
        const status = exchange?.status ?? 0;
        if (status >= 200 && status < 300) return limiter.onSuccess();
        if (status === 429) {
          const retryAfterS =
            (parseRetryAfter(exchange?.headers['retry-after'], { date: exchange?.headers.date }) ??
              1000) / 1000;
          limiter.on429(retryAfterS);
          await clock.sleep(uniform(random, 0, Math.max(retryAfterS, 0.5)) * 1000, work.stop);
        } else {
          await clock.sleep(1000, work.stop);
        }
      }
    });
  },
};
