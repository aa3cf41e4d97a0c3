/**
 * A sum whose terms fade exponentially with time: a term added `d` ms ago
 * counts `exp(-d / timeConstantMs)`. It is the building block of a
 * time-based EMA — unlike a per-sample `alpha`, its memory is the same number
 * of seconds whether 2 or 200 samples arrive per second, so a falling rate
 * does not also make the average slower to react.
 *
 * Times are monotonic ms supplied by the caller; a time earlier than the last
 * one seen is treated as "now" (no negative decay).
 */
export class DecayingSum {
  readonly #timeConstantMs: number;
  #value = 0;
  #at = Number.NEGATIVE_INFINITY;

  /** @param timeConstantMs Memory of the sum, ms (> 0; the caller validates it). */
  constructor(timeConstantMs: number) {
    this.#timeConstantMs = timeConstantMs;
  }

  /** Adds `amount` at time `at`. */
  add(at: number, amount: number): void {
    this.#value = this.valueAt(at) + amount;
    this.#at = Math.max(this.#at, at);
  }

  /** The sum as seen at time `at` (without changing it). */
  valueAt(at: number): number {
    if (this.#value === 0 || at <= this.#at) return this.#value;
    return this.#value * Math.exp(-(at - this.#at) / this.#timeConstantMs);
  }
}

/**
 * The weight an exponentially fading integral has accumulated `elapsedMs`
 * after it started, as a fraction of its steady-state weight:
 * `1 - exp(-elapsed / timeConstant)`. Dividing an early estimate by this
 * removes its start-up bias (the estimate of a constant rate is then exact
 * from the start instead of creeping up from zero).
 */
export function warmth(elapsedMs: number, timeConstantMs: number): number {
  return elapsedMs <= 0 ? 0 : -Math.expm1(-elapsedMs / timeConstantMs);
}

/**
 * `timeConstantMs × warmth(lengthMs)`: the exponentially weighted length of an
 * interval that ended just now and lasted `lengthMs`, i.e.
 * ∫ exp(-(now − t)/τ) dt over that interval.
 */
export function fadedLength(lengthMs: number, timeConstantMs: number): number {
  return timeConstantMs * warmth(lengthMs, timeConstantMs);
}
