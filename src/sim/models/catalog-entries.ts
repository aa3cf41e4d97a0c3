import { BlockModel } from './block.js';
import { ByteDripModel } from './byte-drip.js';
import { ConcurrencyCapModel } from './concurrency-cap.js';
import { EscalationModel } from './escalation.js';
import { FixedWindowModel } from './fixed-window.js';
import { HealthyModel } from './healthy.js';
import { LimitReqModel } from './limit-req.js';
import { LumpyBucketModel } from './lumpy-bucket.js';
import type { ServerModel } from './model.js';
import { PacingRampModel } from './pacing-ramp.js';
import { PenaltyBoxModel } from './penalty-box.js';
import { QueueTimeoutModel } from './queue-timeout.js';
import { QuotaModel } from './quota.js';
import { RETRY_AFTER_FORMS } from './retry-after.js';
import { LIMIT_SCOPES } from './scoped-state.js';
import { SlidingCounterModel } from './sliding-counter.js';
import { SlidingLogModel } from './sliding-log.js';
import { TarpitModel } from './tarpit.js';
import { TokenBucketModel } from './token-bucket.js';

/** How a parameter's text is read: a number, a rate (`30` or `30,10@10000`), or a word. */
export type ModelParamKind = 'number' | 'rate' | 'choice';

/** One parameter of a catalog model (the model's option of the same name documents it fully). */
export interface ModelParam {
  readonly name: string;
  readonly kind: ModelParamKind;
  /** One line for `--help`. */
  readonly description: string;
  /** Allowed values of a `choice` parameter. */
  readonly choices?: readonly string[];
}

/** A named model the CLI and scenarios can build from text. */
export interface ModelEntry {
  readonly name: string;
  /** One line for `--help`. */
  readonly description: string;
  readonly params: readonly ModelParam[];
  /** Builds the model from validated-by-the-model options (`random` included). */
  create(options: Record<string, unknown>): ServerModel;
}

const num = (name: string, description: string): ModelParam => ({
  name,
  kind: 'number',
  description,
});
const rate = (description: string): ModelParam => ({ name: 'rate', kind: 'rate', description });
const LATENCY = [
  num('latencyMs', 'base latency of a served request, ms'),
  num('jitterMs', 'seeded extra latency, uniform in [0, jitterMs) ms'),
];
const LIMIT = [
  {
    name: 'retryAfter',
    kind: 'choice',
    description: 'Retry-After form',
    choices: RETRY_AFTER_FORMS,
  },
  {
    name: 'scope',
    kind: 'choice',
    description: 'one budget or one per client',
    choices: LIMIT_SCOPES,
  },
] as const satisfies readonly ModelParam[];
const CLIENT_RATE = [
  num('rate', 'requests/s per client before the penalty applies (0: always)'),
  num('windowMs', 'span over which the client rate is measured, ms'),
];
const STEADY_RATE = 'capacity in req/s, or steps like 30,10@10000,40@20000 (rate@fromMs)';
const WINDOW = [rate(STEADY_RATE), num('windowMs', 'window length, ms'), ...LIMIT, ...LATENCY];

/** Every model `createModel` knows, by name. */
export const MODEL_CATALOG: readonly ModelEntry[] = [
  {
    name: 'healthy',
    description: 'always 200 after a constant latency',
    params: LATENCY,
    create: (o) => new HealthyModel(o),
  },
  {
    name: 'fixed-window',
    description: 'N per window, 429 + Retry-After at once when over',
    params: WINDOW,
    create: (o) => new FixedWindowModel(o),
  },
  {
    name: 'sliding-log',
    description: 'at most N in any sliding window, 429 when over',
    params: WINDOW,
    create: (o) => new SlidingLogModel(o),
  },
  {
    name: 'token-bucket',
    description: 'token bucket with burst, 429 when empty',
    params: [rate(STEADY_RATE), num('burst', 'bucket size'), ...LIMIT, ...LATENCY],
    create: (o) => new TokenBucketModel(o),
  },
  {
    name: 'limit-req',
    description: "nginx's limit_req: a leaky bucket that delays its burst, 503 beyond it",
    params: [
      rate('the rate the bucket drains at, req/s, or steps like 10,5@10000'),
      num('burst', 'excess requests tolerated (nginx burst)'),
      num('delay', 'excess served at once, the rest delayed (Infinity: nodelay)'),
      num('status', 'status of the refusal'),
      ...LIMIT,
      ...LATENCY,
    ],
    create: (o) => new LimitReqModel(o),
  },
  {
    name: 'sliding-counter',
    description: 'sliding window counter (previous window weighted), 429 when over',
    params: [...WINDOW, num('phaseMs', 'where windows start on the clock, ms')],
    create: (o) => new SlidingCounterModel(o),
  },
  {
    name: 'penalty-box',
    description: 'over the limit once: every request refused for blockMs',
    params: [...WINDOW, num('blockMs', 'block duration, ms'), num('phaseMs', 'window start, ms')],
    create: (o) => new PenaltyBoxModel(o),
  },
  {
    name: 'lumpy-bucket',
    description: "tokens added in lumps on a timer (Envoy's local rate limit), 429 when empty",
    params: [
      rate(STEADY_RATE),
      num('fillIntervalMs', 'time between fills, ms'),
      num('burst', 'most tokens held (0: one fill)'),
      num('phaseMs', 'where fills happen on the clock, ms'),
      ...LIMIT,
      ...LATENCY,
    ],
    create: (o) => new LumpyBucketModel(o),
  },
  {
    name: 'concurrency-cap',
    description: '503 when more than N requests are in flight',
    params: [
      num('limit', 'requests served at once'),
      num('status', 'status of the rejection'),
      LIMIT[0],
      ...LATENCY,
    ],
    create: (o) => new ConcurrencyCapModel(o),
  },
  {
    name: 'quota',
    description: 'X-RateLimit-* and IETF RateLimit headers on every response, 429 when spent',
    params: [
      num('limit', 'requests per window'),
      num('windowMs', 'window length, ms'),
      {
        name: 'headers',
        kind: 'choice',
        description: 'header families',
        choices: ['both', 'x-ratelimit', 'ietf'],
      },
      {
        name: 'resetForm',
        kind: 'choice',
        description: 'X-RateLimit-Reset form',
        choices: ['delta', 'epoch'],
      },
      ...LIMIT,
      ...LATENCY,
    ],
    create: (o) => new QuotaModel(o),
  },
  ...(['ramp', 'decaying-ramp'] as const).map(
    (name): ModelEntry => ({
      name,
      description:
        name === 'ramp'
          ? '+40 ms per 100 requests from a client, capped at 3 s'
          : 'pacing ramp counting only the last minute of a client: slowing down helps',
      params: [
        num('stepMs', 'extra delay per step, ms'),
        num('stepRequests', 'requests per step'),
        num('maxDelayMs', 'largest extra delay, ms'),
        num('windowMs', 'span of requests counted, ms (Infinity: all)'),
        ...LATENCY,
      ],
      create: (o) => new PacingRampModel(name === 'ramp' ? o : { windowMs: 60_000, ...o }),
    }),
  ),
  {
    name: 'tarpit',
    description: 'requests over the client rate are held before the first byte',
    params: [num('delayMs', 'hold before the first byte, ms'), ...CLIENT_RATE, ...LATENCY],
    create: (o) => new TarpitModel(o),
  },
  {
    name: 'drip',
    description: 'bodies over the client rate are dripped slowly',
    params: [
      num('bodyBytes', 'body size, bytes'),
      num('bytesPerSecond', 'drip speed, bytes/s'),
      ...CLIENT_RATE,
      ...LATENCY,
    ],
    create: (o) => new ByteDripModel(o),
  },
  {
    name: 'queue-timeout',
    description: 'bimodal latency: idle worker → fast, else held until the queue timeout',
    params: [
      num('workers', 'requests served at once'),
      num('holdMs', 'queue timeout, ms'),
      num('heldStatus', 'status of a request released by the timeout'),
      ...LATENCY,
    ],
    create: (o) => new QueueTimeoutModel(o),
  },
  {
    name: 'escalation',
    description: 'over the client rate: delays first, then 429s, then a 403 block page',
    params: [
      num('delayMs', 'soft-stage delay, ms'),
      num('softStrikes', 'strikes answered by delay'),
      num('blockStrikes', 'strikes before the block'),
      num('memoryMs', 'how long a strike is remembered, ms'),
      num('blockMs', 'block duration, ms (Infinity: for good)'),
      LIMIT[0],
      ...CLIENT_RATE,
      ...LATENCY,
    ],
    create: (o) => new EscalationModel(o),
  },
  {
    name: 'block',
    description: '403 captcha page once a client passes a request threshold',
    params: [
      num('threshold', 'requests before the block'),
      num('windowMs', 'span of requests counted, ms (Infinity: all)'),
      num('blockMs', 'block duration, ms (Infinity: for good)'),
      ...LATENCY,
    ],
    create: (o) => new BlockModel(o),
  },
];
