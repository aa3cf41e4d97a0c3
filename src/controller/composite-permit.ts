import type { Signal } from '../signal.js';
import type { OutcomeDetails, Permit } from './permit.js';

/** One permit standing for several: a request admitted by every scope it needs. */
export class CompositePermit implements Permit {
  readonly #permits: readonly Permit[];

  constructor(permits: readonly Permit[]) {
    this.#permits = permits;
  }

  /** The latest admission among the scopes: when the request could actually go. */
  get sentAt(): number {
    return Math.max(...this.#permits.map((p) => p.sentAt));
  }

  report(signal: Signal, details?: OutcomeDetails): void {
    for (const permit of this.#permits) permit.report(signal, details);
  }

  release(): void {
    for (const permit of this.#permits) permit.release();
  }
}
