import { diagnosePhases, type PhaseDiagnosis } from '../detect/phase-diagnosis.js';
import type { PhaseTimings } from '../timings.js';

/** Timings compared at each end of the log (the first ones are the reference). */
const PHASE_WINDOW = 50;
/** Fewest timings worth a reference window; below it the verdict is by shares alone. */
const MIN_PHASE_WINDOW = 10;

/**
 * Keeps the first and the last {@link PHASE_WINDOW} timings of a log (memory
 * bounded whatever its length) and judges the end against the start with
 * {@link diagnosePhases}: a tarpit shows as server wait that grew while DNS
 * and connect stayed flat, a byte-drip as a body phase that grew.
 */
export class PhaseCollector {
  readonly #first: PhaseTimings[] = [];
  readonly #last: PhaseTimings[] = [];

  /** Adds one request's timings. */
  add(timings: PhaseTimings): void {
    if (this.#first.length < PHASE_WINDOW) {
      this.#first.push(timings);
      return;
    }
    this.#last.push(timings);
    if (this.#last.length > PHASE_WINDOW) this.#last.shift();
  }

  /** The verdict, or `null` when no request carried timings. */
  diagnose(): PhaseDiagnosis | null {
    if (this.#first.length === 0) return null;
    const all = [...this.#first, ...this.#last];
    const window = Math.min(PHASE_WINDOW, Math.max(MIN_PHASE_WINDOW, Math.floor(all.length / 2)));
    if (all.length >= 2 * window) {
      // The ends only: the first `window` are the reference, the last `window` the current state.
      return diagnosePhases([...all.slice(0, window), ...all.slice(-window)], { window });
    }
    return diagnosePhases(all, { window });
  }
}
