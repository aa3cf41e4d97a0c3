import { flag, given, number } from '../../option-rules.js';
import { defineOptions, type OptionsOf } from '../../option-spec.js';
import { latencySpec } from './latency.js';
import { LIMIT_SPEC } from './limit-options.js';
import type { ModelReply, ModelRequest } from './model.js';
import { type RateInput, type Scheduled, withRateSchedule } from './rate-schedule.js';
import { ScopedState } from './scoped-state.js';
import { ServingModel } from './serving-model.js';

const OWNER = 'LumpyBucketModel';
const readOptions = defineOptions(OWNER, {
  /**
   * Tokens per second, constant or on a schedule: each fill adds `round(rate × fillIntervalMs / 1000)`.
   * @default 30
   */
  rate: given<RateInput>(),
  /**
   * Time between fills, ms (Envoy's `fill_interval`).
   * @default 1000
   */
  fillIntervalMs: number(1000, { min: 1 }),
  /**
   * Most tokens held (Envoy's `max_tokens`); 0 holds one fill.
   * @default 0
   */
  burst: number(0, { min: 0, integer: true }),
  /**
   * Where fills happen on the server's clock (`phaseMs + k × fillIntervalMs`), ms.
   * @default 0
   */
  phaseMs: number(0, { min: 0 }),
  /**
   * Every reply carries `X-RateLimit-Limit`, `-Remaining` and `-Reset` (seconds to the next fill),
   * as Envoy's `enable_x_ratelimit_headers: DRAFT_VERSION_03` does.
   * @default false
   */
  publishes: flag(false),
  ...LIMIT_SPEC,
  ...latencySpec(350),
});

/** Options of {@link LumpyBucketModel}. Latency defaults to 350 ms. */
export interface LumpyBucketOptions extends OptionsOf<typeof readOptions> {}
type Settings = Scheduled<ReturnType<typeof readOptions>>;

interface Bucket {
  tokens: number;
  /** Index of the last fill counted. */
  fill: number;
}

/**
 * A token bucket refilled in lumps on a timer (Envoy's local rate limit, many gateway plugins):
 * full at first, `tokensPerFill` added every `fillIntervalMs` up to `burst`; a request takes a
 * token or is refused at once with the time to the next fill. Unlike a smooth bucket it grants a
 * fill's worth at each tick and nothing between.
 */
export class LumpyBucketModel extends ServingModel<Settings> {
  readonly name = 'lumpy-bucket';
  readonly #buckets = new ScopedState<Bucket>(this.settings.scope, () => ({
    tokens: this.#mostTokens(0),
    fill: -Infinity,
  }));

  constructor(options: LumpyBucketOptions = {}) {
    super(withRateSchedule(OWNER, readOptions(options)));
  }

  arrive(request: ModelRequest): ModelReply {
    const { fillIntervalMs, phaseMs } = this.settings;
    const bucket = this.#buckets.of(request);
    const fill = Math.floor((request.at - phaseMs) / fillIntervalMs);
    const most = this.#mostTokens(request.at);
    if (bucket.fill === -Infinity) bucket.fill = fill;
    bucket.tokens = Math.min(
      most,
      bucket.tokens + (fill - bucket.fill) * this.#perFill(request.at),
    );
    bucket.fill = fill;
    const toFillMs = phaseMs + (fill + 1) * fillIntervalMs - request.at;
    const admitted = bucket.tokens >= 1;
    if (admitted) bucket.tokens -= 1;
    const headers = this.settings.publishes
      ? {
          'x-ratelimit-limit': String(most),
          'x-ratelimit-remaining': String(Math.floor(bucket.tokens)),
          'x-ratelimit-reset': String(Math.ceil(toFillMs / 1000)),
        }
      : {};
    return admitted ? this.served(0, headers) : this.refused(request, toFillMs, 429, headers);
  }

  capacity(at: number): number {
    return (this.#perFill(at) * 1000) / this.settings.fillIntervalMs;
  }

  #perFill(at: number): number {
    return Math.max(
      1,
      Math.round((this.settings.rate.at(at) * this.settings.fillIntervalMs) / 1000),
    );
  }

  /** The most tokens the bucket holds at `at`: its burst, and at least one fill. */
  #mostTokens(at: number): number {
    return Math.max(this.settings.burst, this.#perFill(at));
  }
}
