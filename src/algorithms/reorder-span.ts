import type { Sample } from './sample.js';

/** Weight of each refusal's round trip in the smoothed mean, and of its deviation in the mean deviation. */
const SMOOTHING = { mean: 0.125, deviation: 0.25 } as const;
/**
 * The span is this many mean deviations of the refusals' round trips: about
 * the whole spread of two round trips with the same noise (4.8 standard
 * deviations of a normal spread; the whole range of two uniform delays
 * added). With four, a smoothed deviation a little low left a resume's first
 * refusal outside it, and it cut the rate as if the server were open.
 */
const DEVIATIONS = 6;

/**
 * How far apart in send time two refused requests may be and still have their
 * refusals come back in either order, ms: six mean deviations of the
 * refusals' round trips (smoothed as TCP smooths its round trip). Timing
 * noise between the client and the server (a busy event loop, the library's
 * response handling, loopback) spreads them; a server that refuses at once
 * with none answers every refusal alike, and the span is 0. Not saved.
 */
export class ReorderSpan {
  #meanMs = Number.NaN;
  #deviationMs = 0;

  /** The span, ms (0 before the second refusal). */
  get ms(): number {
    return DEVIATIONS * this.#deviationMs;
  }

  /** Notes a refusal's round trip. */
  note(refusal: Sample): void {
    const rtt = refusal.at - refusal.sentAt;
    if (!(rtt >= 0 && Number.isFinite(rtt))) return;
    if (Number.isNaN(this.#meanMs)) {
      this.#meanMs = rtt;
      return;
    }
    this.#deviationMs += (Math.abs(rtt - this.#meanMs) - this.#deviationMs) * SMOOTHING.deviation;
    this.#meanMs += (rtt - this.#meanMs) * SMOOTHING.mean;
  }
}
