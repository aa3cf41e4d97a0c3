import type { Sample } from '../algorithms/sample.js';

/**
 * How timing noise between a client and its server blurs a request's count of
 * what was in flight. Under noise a count includes requests the server had
 * finished whose answers were still on their way, and requests sent just
 * after a refused one may have reached the server before it. A refusal
 * answered faster than any page shows the noise: the server answered it at
 * once, so its round trip is the way there and back. One that took as long
 * as a page says nothing of it (the server may take a page's time to refuse),
 * and without noise a refusal answered at once takes no time: counts are
 * then exact.
 */
export class CountNoise {
  /** The fastest and the latest success's round trip, ms. */
  #fastestMs = Number.POSITIVE_INFINITY;
  #latestMs = 0;

  /** Notes a success's round trip. */
  onAccepted(rttMs: number): void {
    this.#latestMs = rttMs;
    if (rttMs < this.#fastestMs) this.#fastestMs = rttMs;
  }

  /** The noise a refusal shows, ms: its round trip when faster than any success's; 0 otherwise. */
  noiseMs(refusal: Sample): number {
    const rttMs = refusal.at - refusal.sentAt;
    return rttMs > 0 && rttMs < this.#fastestMs ? rttMs : 0;
  }

  /**
   * How far a count may be off around `refusal`: about as many answers as
   * come in its noise at its in flight, rounded — none without noise, nor
   * where under half an answer is on its way on average (a slow scope at one
   * or two in flight, where a count off by one would read a rate limit as a
   * cap of one).
   */
  slack(refusal: Sample): number {
    const noiseMs = this.noiseMs(refusal);
    if (noiseMs === 0) return 0;
    const latestMs = this.#latestMs;
    return latestMs > 0 ? Math.round((refusal.inflight * noiseMs) / latestMs) : 0;
  }

  /**
   * The most in flight `refusal` may have met at the server: its count at
   * send, or under noise its count as it came back, itself included.
   */
  refusedCount(refusal: Sample): number {
    if (this.noiseMs(refusal) === 0) return refusal.inflight;
    return Math.max(refusal.inflight, (refusal.outstanding ?? 0) + 1);
  }
}
