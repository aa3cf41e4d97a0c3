import { type Random, seededRandom, uniform } from '../../random.js';
import type { RateStep } from '../models/rate-schedule.js';
import { activeSpans, chance, clientFor, logUniform, pick, pickOne } from './draw-parts.js';
import type { FamilyServer, LimitKind, RetryAfterChoice } from './server.js';

/** The widest range of capacities drawn, requests/s. */
export const RATE_RANGE = { min: 1, max: 500 } as const;
/** A timed run lasts this long; steady state is judged after the cold start. */
export const RUN_MS = 240_000;
const SECOND = 1000;

/** Limit kinds and how often each is drawn. */
const KINDS: readonly (readonly [LimitKind, number])[] = [
  ['fixed-window', 18],
  ['sliding-log', 14],
  ['token-bucket', 14],
  ['gcra', 14],
  ['concurrency-cap', 10],
  ['quota', 18],
  ['count-ramp', 6],
  ['rate-ramp', 6],
];
const RETRY_AFTER: readonly (readonly [RetryAfterChoice, number])[] = [
  ['none', 20],
  ['zero', 15],
  ['wait', 25],
  ['http-date', 25],
  ['fixed', 15],
];

/**
 * Draws server `index` of the family with seed `seed`: a limit kind, a rate
 * (1–500 req/s, log-uniform), a latency (20 ms–2 s, with jitter), a refusal
 * form (429 or 503; Retry-After absent, 0, the wait, an HTTP-date or a
 * constant 1–5 s; a skewed `Date` half the time), and, independently, capacity
 * steps (×0.25–×4 every 10 s–5 min), an unseen consumer sharing the limit, and
 * unrelated 5xx noise. Each server depends only on (seed, index), so a sample
 * of 20 is the first 20 of a sample of 200.
 */
export function drawServer(seed: number, index: number): FamilyServer {
  const random = seededRandom(`family:${seed}:${index}`);
  const kind = pick(random, KINDS);
  const ramp = kind === 'count-ramp' || kind === 'rate-ramp';
  const latencyMs = Math.round(logUniform(random, 20, 2000));
  const jitterMs = Math.round(latencyMs * uniform(random, 0, 1));
  const base = logUniform(random, RATE_RANGE.min, RATE_RANGE.max);
  const steps = !ramp && kind !== 'concurrency-cap' && kind !== 'quota' && chance(random, 0.4);
  const rate = steps ? rateSteps(random, base) : [{ fromMs: 0, rate: base }];
  const slots = Math.round(logUniform(random, 2, 64));
  const server: FamilyServer = {
    seed,
    index,
    kind,
    rate:
      kind === 'concurrency-cap'
        ? [{ fromMs: 0, rate: (slots * SECOND) / (latencyMs + jitterMs / 2) }]
        : rate,
    windowMs: kind === 'quota' ? pickOne(random, [10, 60]) * SECOND : windowFor(random),
    burst: Math.max(1, Math.round(base * logUniform(random, 0.05, 2))),
    slots,
    quota: {
      headers: pickOne(random, ['x-ratelimit', 'ietf', 'both'] as const),
      resetForm: pickOne(random, ['delta', 'epoch'] as const),
    },
    ...(ramp ? { ramp: rampFor(random, kind) } : {}),
    latencyMs: ramp ? Math.round(uniform(random, 100, 300)) : latencyMs,
    jitterMs: ramp ? 50 : jitterMs,
    refusalStatus: chance(random, 0.8) ? 429 : 503,
    retryAfter: pick(random, RETRY_AFTER),
    retryAfterS: 1 + Math.floor(uniform(random, 0, 5)),
    dateSkewMs: chance(random, 0.5) ? Math.round(uniform(random, -30, 30) * SECOND) : 0,
    ...(!ramp && kind !== 'concurrency-cap' && chance(random, 0.25)
      ? { background: { share: uniform(random, 0.1, 0.5), active: activeSpans(random, RUN_MS) } }
      : {}),
    noise: !ramp && chance(random, 0.2) ? logUniform(random, 0.002, 0.02) : 0,
    client: { maxConcurrency: 0, timeoutMs: kind === 'rate-ramp' ? 5000 : 30_000 },
    durationMs: ramp ? 20 * 60 * SECOND : RUN_MS,
  };
  return { ...server, client: clientFor(random, server) };
}

/** A window of 1 s most of the time, else 10 s or a minute. */
function windowFor(random: Random): number {
  const r = random.next();
  return (r < 0.6 ? 1 : r < 0.8 ? 10 : 60) * SECOND;
}

/** Capacity steps ×0.25–×4 at intervals around a mean of 10 s–5 min, within the rate range. */
function rateSteps(random: Random, base: number): RateStep[] {
  const meanMs = logUniform(random, 10, 300) * SECOND;
  const steps: RateStep[] = [{ fromMs: 0, rate: base }];
  let rate = base;
  for (let at = meanMs * uniform(random, 0.5, 1.5); at < RUN_MS; ) {
    rate = clampRate(rate * logUniform(random, 0.25, 4));
    steps.push({ fromMs: Math.round(at), rate });
    at += meanMs * uniform(random, 0.5, 1.5);
  }
  return steps;
}

/** A count-keyed ramp (the `ramp` model's) or one keyed to the recent rate, over a timeout. */
function rampFor(random: Random, kind: LimitKind) {
  if (kind === 'count-ramp') {
    return {
      stepMs: Math.round(uniform(random, 20, 60)),
      stepRequests: Math.round(uniform(random, 50, 200)),
      maxDelayMs: Math.round(uniform(random, 1500, 4000)),
      windowMs: Infinity,
    };
  }
  return {
    stepMs: Math.round(uniform(random, 200, 600)),
    stepRequests: Math.round(uniform(random, 15, 40)),
    maxDelayMs: 20_000,
    windowMs: Math.round(uniform(random, 20, 60)) * SECOND,
  };
}

function clampRate(rate: number): number {
  return Math.min(RATE_RANGE.max, Math.max(RATE_RANGE.min, rate));
}
