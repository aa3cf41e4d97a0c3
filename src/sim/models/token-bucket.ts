import { defineOptions, given, number } from '../../option-spec.js';
import { type Latency, type LatencyOptions, latencyOf, latencySpec } from './latency.js';
import { LIMIT_SPEC, type LimitOptions } from './limit-options.js';
import type { ModelReply, ModelRequest, ServerModel } from './model.js';
import { type RateInput, RateSchedule } from './rate-schedule.js';
import { textReply } from './reply.js';
import { type RetryAfterForm, retryAfterHeaders } from './retry-after.js';
import { ScopedState } from './scoped-state.js';

/** Options of {@link TokenBucketModel}. Latency defaults to 350 ms. */
export interface TokenBucketOptions extends LimitOptions, LatencyOptions {
  /**
   * Refill rate in tokens (requests)/s, constant or on a schedule.
   * @default 30
   */
  rate?: RateInput;
  /**
   * Bucket size: the largest burst served back to back. The bucket starts full.
   * @default 10
   */
  burst?: number;
}

const OWNER = 'TokenBucketModel';
const readOptions = defineOptions<TokenBucketOptions>()(OWNER, {
  rate: given(),
  burst: number(10, { min: 1 }),
  ...LIMIT_SPEC,
  ...latencySpec(350),
});

interface Bucket {
  tokens: number;
  refilledAt: number | undefined;
}

/**
 * A token-bucket limiter: each served request takes a token, tokens refill at
 * `rate` per second up to `burst`. With no token left the request gets 429 at
 * once, with a Retry-After of the time until the next token.
 */
export class TokenBucketModel implements ServerModel {
  readonly name = 'token-bucket';
  readonly #rate: RateSchedule;
  readonly #burst: number;
  readonly #retryAfter: RetryAfterForm;
  readonly #buckets: ScopedState<Bucket>;
  readonly #latency: Latency;

  constructor(options: TokenBucketOptions = {}) {
    const settings = readOptions(options);
    this.#rate = RateSchedule.from(OWNER, 'rate', settings.rate, 30);
    this.#burst = settings.burst;
    this.#retryAfter = settings.retryAfter;
    this.#buckets = new ScopedState(settings.scope, () => ({
      tokens: this.#burst,
      refilledAt: undefined,
    }));
    this.#latency = latencyOf(settings);
  }

  arrive(request: ModelRequest): ModelReply {
    const bucket = this.#buckets.of(request);
    const since = bucket.refilledAt ?? request.at;
    bucket.tokens = Math.min(
      this.#burst,
      bucket.tokens + this.#rate.requestsBetween(since, request.at),
    );
    bucket.refilledAt = request.at;
    if (bucket.tokens < 1) {
      const waitMs = ((1 - bucket.tokens) * 1000) / this.#rate.at(request.at);
      return textReply(429, {
        headers: retryAfterHeaders(this.#retryAfter, waitMs, request.wallAt),
      });
    }
    bucket.tokens -= 1;
    return textReply(200, { ttfbMs: this.#latency.sample() });
  }

  capacity(at: number): number {
    return this.#rate.at(at);
  }
}
