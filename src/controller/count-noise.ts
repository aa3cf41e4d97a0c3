import type { Sample } from '../algorithms/sample.js';

/**
 * How timing noise between a client and its server blurs a request's count of
 * what was in flight. A server answers a refusal at once, so a refusal's
 * round trip is that noise; without it the round trip is 0 and counts are
 * exact. Under noise, a count includes requests the server had finished whose
 * answers were still on their way, and requests sent just after a refused
 * one may have reached the server before it.
 */

/**
 * How far a count may be off when requests and answers take up to `noiseMs`
 * on their way at `inflight` in flight, successes taking `latencyMs`: as many
 * answers as come in that time, or requests as leave — at least one under
 * any noise, none without.
 */
export function countSlack(inflight: number, noiseMs: number, latencyMs: number): number {
  if (!(noiseMs > 0)) return 0;
  return latencyMs > 0 ? Math.ceil((inflight * noiseMs) / latencyMs) : 1;
}

/**
 * The most in flight a refusal may have met at the server: its count at
 * send, or under noise (a round trip above 0) its count as it came back,
 * itself included — requests sent after it may have reached the server first.
 */
export function refusedCount(refusal: Sample): number {
  if (!(refusal.at > refusal.sentAt)) return refusal.inflight;
  return Math.max(refusal.inflight, (refusal.outstanding ?? 0) + 1);
}
