import { type Random, seededRandom, uniform } from '../../random.js';
import { RUN_MS } from './draw.js';
import { activeSpans, chance, clientFor, logUniform, pick, pickOne } from './draw-parts.js';
import {
  type FamilyServer,
  FIELD_DEFAULTS,
  type FieldKind,
  type FieldLimit,
  type RetryAfterChoice,
} from './server.js';

const SECOND = 1000;

/** Field limits and how often each is drawn. */
const KINDS: readonly (readonly [FieldKind, number])[] = [
  ['limit-req', 35],
  ['sliding-counter', 25],
  ['lumpy-bucket', 20],
  ['penalty-box', 20],
];

/** The Retry-After a kind's refusals carry, as deployments send it. */
const RETRY_AFTER: Readonly<Record<FieldKind, readonly (readonly [RetryAfterChoice, number])[]>> = {
  'limit-req': [
    ['none', 85],
    ['fixed', 15],
  ],
  'sliding-counter': [
    ['none', 30],
    ['wait', 40],
    ['http-date', 10],
    ['zero', 10],
    ['fixed', 10],
  ],
  'lumpy-bucket': [
    ['none', 80],
    ['wait', 20],
  ],
  'penalty-box': [
    ['wait', 50],
    ['none', 30],
    ['http-date', 20],
  ],
};

/**
 * Draws server `index` of the field set with seed `seed`: a limit as deployed in the field, with
 * settings in the ranges its configurations use — nginx's `limit_req` (0.5–200 r/s, burst 0–100,
 * `nodelay`, delayed or `delay=N`, 503 or 429 and no Retry-After as nginx sends), a sliding
 * window counter (1 s, 10 s or a minute; refusals counted or not), a token bucket refilled in
 * lumps (Envoy: every 100 ms, 1 s or a minute, holding one to five fills — one a minute —,
 * publishing its state or not) and a penalty box (over the limit once, blocked 10 s to 2 min and
 * no shorter than its window) — and, as in the family, a latency of 20 ms–2 s, a skewed `Date`
 * half the time, an unseen consumer sharing the limit a quarter of the time and unrelated 5xx
 * noise a fifth of the time. None of these limits is in the family ratewise was tuned on: the set
 * exists to measure it on servers it was never tuned for. Each server depends only on (seed, index).
 */
export function drawFieldServer(seed: number, index: number): FamilyServer {
  const random = seededRandom(`field:${seed}:${index}`);
  const kind = pick(random, KINDS);
  const latencyMs = Math.round(logUniform(random, 20, 2000));
  const limit = limitFor(random, kind);
  const server: FamilyServer = {
    seed,
    index,
    kind,
    ...limit,
    slots: 0,
    quota: { headers: 'x-ratelimit', resetForm: 'delta' },
    latencyMs,
    jitterMs: Math.round(latencyMs * uniform(random, 0, 1)),
    refusalStatus: kind === 'limit-req' && chance(random, 0.6) ? 503 : 429,
    retryAfter: pick(random, RETRY_AFTER[kind]),
    retryAfterS: pickOne(random, [1, 1, 2, 5, 10, 30]),
    dateSkewMs: chance(random, 0.5) ? Math.round(uniform(random, -30, 30) * SECOND) : 0,
    ...(chance(random, 0.25)
      ? { background: { share: uniform(random, 0.1, 0.5), active: activeSpans(random, RUN_MS) } }
      : {}),
    noise: chance(random, 0.2) ? logUniform(random, 0.002, 0.02) : 0,
    client: { maxConcurrency: 0, timeoutMs: 30_000 },
    durationMs: RUN_MS,
  };
  return { ...server, client: clientFor(random, server) };
}

/** The limit's own settings: its rate, window (or fill interval), burst and field settings. */
function limitFor(random: Random, kind: FieldKind) {
  const phaseMs = (windowMs: number) => Math.round(uniform(random, 0, windowMs));
  switch (kind) {
    case 'limit-req': {
      const burst = pickOne(random, [0, 1, 5, 10, 20, 50, 100]);
      const mode = random.next();
      const delay = mode < 0.5 ? Infinity : mode < 0.85 ? 0 : Math.floor(burst / 2);
      const rate = logUniform(random, 0.5, 200);
      return limit(rate, SECOND, burst, { delay });
    }
    case 'sliding-counter': {
      const windowMs = pickOne(random, [1, 10, 60]) * SECOND;
      const rate = logUniform(random, Math.max(0.5, SECOND / windowMs), 200);
      return limit(rate, windowMs, 0, {
        countsRefused: chance(random, 0.5),
        phaseMs: phaseMs(windowMs),
      });
    }
    case 'lumpy-bucket': {
      const windowMs = pick(random, [
        [100, 15],
        [SECOND, 60],
        [60 * SECOND, 25],
      ] as const);
      const perFill = Math.max(1, Math.round((logUniform(random, 1, 300) * windowMs) / SECOND));
      // A minute's fills hold one: a run of four minutes would be judged on the first burst.
      const fills = pickOne(random, [1, 1, 2, 5]);
      const burst = perFill * (windowMs < 60 * SECOND ? fills : 1);
      const fill = { phaseMs: phaseMs(windowMs), publishes: chance(random, 0.4) };
      return limit((perFill * SECOND) / windowMs, windowMs, burst, fill);
    }
    case 'penalty-box': {
      const windowMs = pick(random, [
        [SECOND, 40],
        [10 * SECOND, 30],
        [60 * SECOND, 30],
      ] as const);
      const rate = logUniform(random, Math.max(0.5, SECOND / windowMs), 100);
      // A block shorter than the window would end with the window still full: blocked again at once.
      const blockMs = Math.max(windowMs, pickOne(random, [10, 30, 60, 120]) * SECOND);
      return limit(rate, windowMs, 0, { blockMs, phaseMs: phaseMs(windowMs) });
    }
  }
}

/** A limit's settings, with the field settings not given at their defaults. */
function limit(rate: number, windowMs: number, burst: number, field: Partial<FieldLimit>) {
  return { rate: [{ fromMs: 0, rate }], windowMs, burst, field: { ...FIELD_DEFAULTS, ...field } };
}
