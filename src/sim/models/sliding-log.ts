import { numberOption, rejectUnknownOptions } from '../../options.js';
import { LATENCY_OPTION_NAMES, type Latency, type LatencyOptions, readLatency } from './latency.js';
import { LIMIT_OPTION_NAMES, type LimitOptions, readLimitOptions } from './limit-options.js';
import type { ModelReply, ModelRequest, ServerModel } from './model.js';
import { type RateInput, RateSchedule } from './rate-schedule.js';
import { textReply } from './reply.js';
import { type RetryAfterForm, retryAfterHeaders } from './retry-after.js';
import { ScopedState } from './scoped-state.js';
import { TimeLog } from './time-log.js';

/** Options of {@link SlidingLogModel}. Latency defaults to 350 ms. */
export interface SlidingLogOptions extends LimitOptions, LatencyOptions {
  /**
   * Capacity in requests/s, constant or on a schedule: any `windowMs` span
   * admits at most `floor(rate × windowMs / 1000)` requests.
   * @default 30
   */
  rate?: RateInput;
  /**
   * Length of the sliding window, ms.
   * @default 1000
   */
  windowMs?: number;
}

const OWNER = 'SlidingLogModel';
const KNOWN = ['rate', 'windowMs', ...LIMIT_OPTION_NAMES, ...LATENCY_OPTION_NAMES];

/**
 * A sliding-window log limiter: it remembers the arrival time of every served
 * request and admits a new one only while fewer than the limit were served in
 * the last `windowMs`. A rejection's Retry-After is the time until enough of
 * the log expires. Rejections are not logged.
 */
export class SlidingLogModel implements ServerModel {
  readonly name = 'sliding-log';
  readonly #rate: RateSchedule;
  readonly #windowMs: number;
  readonly #retryAfter: RetryAfterForm;
  readonly #logs: ScopedState<TimeLog>;
  readonly #latency: Latency;

  constructor(options: SlidingLogOptions = {}) {
    rejectUnknownOptions(OWNER, options, KNOWN);
    this.#rate = RateSchedule.from(OWNER, 'rate', options.rate, 30);
    this.#windowMs = numberOption(OWNER, 'windowMs', options.windowMs, 1000, { min: 1 });
    this.#rate.requireOnePerWindow(OWNER, this.#windowMs);
    const limits = readLimitOptions(OWNER, options);
    this.#retryAfter = limits.retryAfter;
    this.#logs = new ScopedState(limits.scope, () => new TimeLog());
    this.#latency = readLatency(OWNER, options, 350);
  }

  arrive(request: ModelRequest): ModelReply {
    const log = this.#logs.of(request);
    log.expire(request.at - this.#windowMs);
    const limit = Math.floor((this.#rate.at(request.at) * this.#windowMs) / 1000);
    if (log.size >= limit) {
      const freeing = log.nth(log.size - limit);
      const waitMs = freeing === undefined ? this.#windowMs : freeing + this.#windowMs - request.at;
      return textReply(429, {
        headers: retryAfterHeaders(this.#retryAfter, waitMs, request.wallAt),
      });
    }
    log.push(request.at);
    return textReply(200, { ttfbMs: this.#latency.sample() });
  }

  capacity(at: number): number {
    return this.#rate.at(at);
  }
}
