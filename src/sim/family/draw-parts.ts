import { type Random, uniform } from '../../random.js';
import type { Span } from '../models/background.js';
import type { ClientSetup, FamilyServer } from './server.js';

const SECOND = 1000;

/**
 * Enough concurrency to reach the highest capacity the server will have
 * (1.25–3× what it takes at the mean latency), or a ramp crawler's 16–32.
 */
export function clientFor(random: Random, server: FamilyServer): ClientSetup {
  if (server.ramp !== undefined) {
    const urls = Math.round(uniform(random, 1500, 3000));
    return { ...server.client, maxConcurrency: pickOne(random, [16, 24, 32]), urls };
  }
  const peak = Math.max(...server.rate.map((step) => step.rate));
  const needed =
    server.kind === 'concurrency-cap'
      ? server.slots
      : (peak * (server.latencyMs + server.jitterMs / 2)) / SECOND;
  const maxConcurrency = Math.min(256, Math.max(2, Math.ceil(needed * uniform(random, 1.25, 3))));
  return { ...server.client, maxConcurrency };
}

/** A draw uniform on the log scale between `low` and `high`. */
export function logUniform(random: Random, low: number, high: number): number {
  return Math.exp(uniform(random, Math.log(low), Math.log(high)));
}

/** True with probability `p`. */
export function chance(random: Random, p: number): boolean {
  return random.next() < p;
}

/** One of `items`, each as likely. */
export function pickOne<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random.next() * items.length)] as T;
}

/** One of the weighted items, as likely as its weight. */
export function pick<T>(random: Random, weighted: readonly (readonly [T, number])[]): T {
  const total = weighted.reduce((sum, [, weight]) => sum + weight, 0);
  let r = random.next() * total;
  for (const [item, weight] of weighted) {
    r -= weight;
    if (r < 0) return item;
  }
  return (weighted[weighted.length - 1] as readonly [T, number])[0];
}

/** When an unseen consumer is active: alternating spells of 20–120 s. */
export function activeSpans(random: Random, runMs: number): Span[] {
  const spans: Span[] = [];
  let at = chance(random, 0.5) ? 0 : uniform(random, 20, 120) * SECOND;
  while (at < runMs) {
    const to = at + uniform(random, 20, 120) * SECOND;
    spans.push({ fromMs: Math.round(at), toMs: Math.round(to) });
    at = to + uniform(random, 20, 120) * SECOND;
  }
  return spans;
}
