import { choice, given, number } from '../../option-rules.js';
import { defineOptions, type OptionsOf } from '../../option-spec.js';
import { latencySpec } from './latency.js';
import type { ModelReply, ModelRequest } from './model.js';
import { type RateInput, type Scheduled, withRateSchedule } from './rate-schedule.js';
import { RETRY_AFTER_FORMS } from './retry-after.js';
import { LIMIT_SCOPES, ScopedState } from './scoped-state.js';
import { ServingModel } from './serving-model.js';

const OWNER = 'LimitReqModel';
const readOptions = defineOptions(OWNER, {
  /**
   * The rate the bucket drains at, requests/s (nginx's `rate=10r/s`), constant or on a schedule.
   * @default 10
   */
  rate: given<RateInput>(),
  /**
   * Requests of excess tolerated above the rate (nginx's `burst`); one more is refused.
   * @default 0
   */
  burst: number(0, { min: 0 }),
  /**
   * Excess requests served at once (nginx's `delay=N`); the rest wait their turn, held until the
   * bucket has drained to them. `Infinity` is nginx's `nodelay`; 0, its default, delays every one.
   * @default 0
   */
  delay: number(0, { min: 0, infinite: true }),
  /**
   * Status of a refusal (nginx's `limit_req_status`).
   * @default 503
   */
  status: number(503, { min: 400, max: 599, integer: true }),
  /**
   * Retry-After form on a refusal (nginx sends none).
   * @default 'none'
   */
  retryAfter: choice('none', RETRY_AFTER_FORMS),
  /**
   * One bucket for the whole server, or one per client (nginx keys a zone on `$binary_remote_addr`).
   * @default 'server'
   */
  scope: choice('server', LIMIT_SCOPES),
  ...latencySpec(100),
});

/** Options of {@link LimitReqModel}. Latency defaults to 100 ms. */
export interface LimitReqOptions extends OptionsOf<typeof readOptions> {}

type Settings = Scheduled<ReturnType<typeof readOptions>>;

interface Bucket {
  /** Requests in the bucket after the last admitted one. */
  excess: number;
  /** When the last admitted request arrived, ms. */
  last: number;
}

/**
 * nginx's `limit_req` (a leaky bucket, `ngx_http_limit_req_module`): each request adds one to the
 * bucket, which drains at `rate`; a request that would take it above `burst` is refused at once
 * (503 with no Retry-After, by default) and changes nothing. An admitted request whose excess is
 * above `delay` is held before it is served until the bucket has drained to it, so a client
 * sending faster than the rate sees its requests slow down before any is refused.
 */
export class LimitReqModel extends ServingModel<Settings> {
  readonly name = 'limit-req';
  readonly #buckets = new ScopedState<Bucket>(this.settings.scope, () => ({
    excess: 0,
    last: -Infinity,
  }));

  constructor(options: LimitReqOptions = {}) {
    super(withRateSchedule(OWNER, readOptions(options), 10));
  }

  arrive(request: ModelRequest): ModelReply {
    const { burst, delay, status } = this.settings;
    const rate = this.settings.rate.at(request.at);
    const bucket = this.#buckets.of(request);
    const drained =
      bucket.last === -Infinity ? Infinity : (rate * (request.at - bucket.last)) / 1000;
    const excess = Math.max(0, bucket.excess - drained + 1);
    if (excess > burst) return this.refused(request, ((excess - burst) * 1000) / rate, status);
    bucket.excess = excess;
    bucket.last = request.at;
    return this.served((Math.max(0, excess - delay) * 1000) / rate);
  }

  capacity(at: number): number {
    return this.settings.rate.at(at);
  }
}
