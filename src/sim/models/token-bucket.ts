import { given, number } from '../../option-rules.js';
import { defineOptions, type OptionsOf } from '../../option-spec.js';
import { latencySpec } from './latency.js';
import { LIMIT_SPEC } from './limit-options.js';
import type { ModelReply, ModelRequest } from './model.js';
import { type RateInput, type Scheduled, withRateSchedule } from './rate-schedule.js';
import { ScopedState } from './scoped-state.js';
import { ServingModel } from './serving-model.js';

const OWNER = 'TokenBucketModel';
const readOptions = defineOptions(OWNER, {
  /**
   * Refill rate in tokens (requests)/s, constant or on a schedule.
   * @default 30
   */
  rate: given<RateInput>(),
  /**
   * Bucket size: the largest burst served back to back. The bucket starts full.
   * @default 10
   */
  burst: number(10, { min: 1 }),
  ...LIMIT_SPEC,
  ...latencySpec(350),
});

/** Options of {@link TokenBucketModel}. Latency defaults to 350 ms. */
export interface TokenBucketOptions extends OptionsOf<typeof readOptions> {}

type Settings = Scheduled<ReturnType<typeof readOptions>>;

interface Bucket {
  tokens: number;
  refilledAt: number | undefined;
}

/**
 * A token-bucket limiter: each served request takes a token, tokens refill at
 * `rate` per second up to `burst`. With no token left the request gets 429 at
 * once, with a Retry-After of the time until the next token.
 */
export class TokenBucketModel extends ServingModel<Settings> {
  readonly name = 'token-bucket';
  readonly #buckets = new ScopedState<Bucket>(this.settings.scope, () => ({
    tokens: this.settings.burst,
    refilledAt: undefined,
  }));

  constructor(options: TokenBucketOptions = {}) {
    super(withRateSchedule(OWNER, readOptions(options)));
  }

  arrive(request: ModelRequest): ModelReply {
    const { rate, burst } = this.settings;
    const bucket = this.#buckets.of(request);
    const since = bucket.refilledAt ?? request.at;
    bucket.tokens = Math.min(burst, bucket.tokens + rate.requestsBetween(since, request.at));
    bucket.refilledAt = request.at;
    if (bucket.tokens < 1) {
      return this.refused(request, ((1 - bucket.tokens) * 1000) / rate.at(request.at));
    }
    bucket.tokens -= 1;
    return this.served();
  }

  capacity(at: number): number {
    return this.settings.rate.at(at);
  }
}
