import type { CancelTimer, Clock } from '../clock.js';

/** A sleep that ends at its timer or when {@link WakeUp.wake} is called, whichever comes first. */
export class WakeUp {
  readonly #clock: Clock;
  #wake: (() => void) | undefined;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Whether a sleep is under way. */
  get sleeping(): boolean {
    return this.#wake !== undefined;
  }

  /** Sleeps `ms`, or until woken. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      let cancel: CancelTimer | undefined;
      const done = () => {
        cancel?.();
        if (this.#wake === done) this.#wake = undefined;
        resolve();
      };
      this.#wake = done;
      cancel = this.#clock.setTimer(ms, done);
    });
  }

  /** Ends the sleep under way, if any. */
  wake(): void {
    this.#wake?.();
  }
}
