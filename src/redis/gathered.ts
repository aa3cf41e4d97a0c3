import type { CancelTimer, Clock } from '../clock.js';

/**
 * Outcomes of requests sent under a rate lease, kept for the learner until
 * something carries them to Redis: the share's next renewal — one is asked
 * for `everyMs` after the first outcome kept (`flush`) — or a report that
 * cannot wait (a refusal, a pause), which takes them ahead of itself so the
 * learner reads them in the order they were answered.
 */
export class Gathered {
  readonly #clock: Clock;
  readonly #everyMs: number;
  readonly #flush: () => void;
  #outcomes: string[] = [];
  #timer: CancelTimer | undefined;

  constructor(clock: Clock, everyMs: number, flush: () => void) {
    this.#clock = clock;
    this.#everyMs = everyMs;
    this.#flush = flush;
  }

  /** How many outcomes wait. */
  get size(): number {
    return this.#outcomes.length;
  }

  /** Keeps an outcome (JSON); the first one kept asks for a flush `everyMs` later. */
  add(outcome: string): void {
    this.#outcomes.push(outcome);
    this.#timer ??= this.#clock.setTimer(this.#everyMs, () => {
      this.#timer = undefined;
      this.#flush();
    });
  }

  /** Hands over every outcome kept, in the order they came; the flush asked for is called off. */
  take(): string[] {
    this.#timer?.();
    this.#timer = undefined;
    return this.#outcomes.splice(0);
  }
}
