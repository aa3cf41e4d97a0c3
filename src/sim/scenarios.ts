import type { ModelParams } from './models/catalog.js';
import type { Workload } from './work.js';

/** A reproducible test situation: a server model, the demand on it, and how to judge a run. */
export interface Scenario {
  /** Short name, e.g. `reference-000`. */
  readonly name: string;
  /** One line on what it tests. */
  readonly description: string;
  /** Catalog model spec (`createModel` / `serve-mock --model`). */
  readonly model: string;
  /** Model parameters. */
  readonly params: ModelParams;
  /** Demand and run length. */
  readonly workload: Workload;
  /** Concurrency ceiling given to every strategy. */
  readonly maxConcurrency: number;
  /** Client timeout per request, ms. */
  readonly timeoutMs: number;
  /** Steady state starts here, ms (goodput and rejections are judged after it). */
  readonly steadyFromMs: number;
}

const MINUTE = 60_000;
const demand40 = (durationMs: number): Workload => ({ workers: 40, durationMs });
/** The demo server's run: 40 workers for five minutes under a ceiling of 40, judged after a minute. */
const DEMO_RUN = {
  workload: demand40(5 * MINUTE),
  maxConcurrency: 40,
  timeoutMs: 30_000,
  steadyFromMs: MINUTE,
} as const;

/** The scenarios `ratewise bench` runs, by name. */
export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'reference-000',
    description:
      'the demo server (docs/server-models.md): fixed window 30 req/s, 350 ms, 429 + Retry-After: 1',
    model: 'fixed-window',
    params: { rate: 30, latencyMs: 350, jitterMs: 50, retryAfter: 'seconds' },
    ...DEMO_RUN,
  },
  {
    name: 'sliding-window',
    description: 'sliding-window log, 30 per second, 350 ms',
    model: 'sliding-log',
    params: { rate: 30, windowMs: 1000, latencyMs: 350, jitterMs: 50 },
    ...DEMO_RUN,
  },
  {
    name: 'token-bucket',
    description: 'token bucket 30 req/s with a burst of 30, 350 ms',
    model: 'token-bucket',
    params: { rate: 30, burst: 30, latencyMs: 350, jitterMs: 50 },
    ...DEMO_RUN,
  },
  {
    name: 'changing-capacity',
    description: 'fixed window whose capacity moves 30 → 10 → 40 req/s (at 2 and 4 min), 350 ms',
    model: 'fixed-window',
    params: { rate: '30,10@120000,40@240000', latencyMs: 350, jitterMs: 50 },
    workload: demand40(6 * MINUTE),
    maxConcurrency: 40,
    timeoutMs: 30_000,
    steadyFromMs: 30_000,
  },
  {
    name: 'quota-headers',
    description: 'published quota: 600 per minute in X-RateLimit-* and RateLimit headers, 350 ms',
    model: 'quota',
    params: { limit: 600, windowMs: MINUTE, latencyMs: 350, jitterMs: 50 },
    ...DEMO_RUN,
  },
  {
    name: 'ramp',
    description:
      'pacing ramp keyed to the request count: +40 ms per 100 requests (cap 3 s), 200 ms base, 2,000 URLs',
    model: 'ramp',
    params: { latencyMs: 200, jitterMs: 50 },
    workload: { workers: 40, durationMs: 60 * MINUTE, urls: 2000 },
    maxConcurrency: 16,
    timeoutMs: 30_000,
    steadyFromMs: 0,
  },
  {
    name: 'decaying-ramp',
    description:
      'steep ramp over the last minute (+400 ms per 25 requests, cap 20 s), 200 ms base, 5 s client timeout',
    model: 'decaying-ramp',
    params: { latencyMs: 200, jitterMs: 50, stepMs: 400, stepRequests: 25, maxDelayMs: 20_000 },
    workload: { workers: 40, durationMs: 10 * MINUTE, urls: 2000 },
    maxConcurrency: 32,
    timeoutMs: 5000,
    steadyFromMs: 2 * MINUTE,
  },
  {
    name: 'escalating',
    description:
      'escalating target: over 5 req/s per client, 1 s extra delay for 1,000 strikes, then 429s, then a 403 block',
    model: 'escalation',
    params: {
      rate: 5,
      delayMs: 1000,
      softStrikes: 1000,
      blockStrikes: 3000,
      latencyMs: 200,
      jitterMs: 50,
    },
    workload: demand40(5 * MINUTE),
    maxConcurrency: 32,
    timeoutMs: 30_000,
    steadyFromMs: MINUTE,
  },
  {
    name: 'healthy',
    description: 'healthy server, constant 200 ms: how fast the ceiling is reached',
    model: 'healthy',
    params: { latencyMs: 200, jitterMs: 50 },
    workload: { workers: 64, durationMs: MINUTE },
    maxConcurrency: 32,
    timeoutMs: 30_000,
    steadyFromMs: 10_000,
  },
];

/** The scenario called `name`, or undefined. */
export function findScenario(name: string): Scenario | undefined {
  return SCENARIOS.find((scenario) => scenario.name === name);
}
