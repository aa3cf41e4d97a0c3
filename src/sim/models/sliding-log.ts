import { defineOptions } from '../../option-spec.js';
import type { Latency } from './latency.js';
import type { ModelReply, ModelRequest, ServerModel } from './model.js';
import type { RateSchedule } from './rate-schedule.js';
import { textReply } from './reply.js';
import { type RetryAfterForm, retryAfterHeaders } from './retry-after.js';
import { ScopedState } from './scoped-state.js';
import { TimeLog } from './time-log.js';
import { WINDOW_SPEC, type WindowOptions, windowSettings } from './window-options.js';

/** Options of {@link SlidingLogModel}. Latency defaults to 350 ms. */
export type SlidingLogOptions = WindowOptions;

const OWNER = 'SlidingLogModel';
const readOptions = defineOptions<WindowOptions>()(OWNER, WINDOW_SPEC);

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
    const settings = windowSettings(OWNER, readOptions(options));
    this.#rate = settings.rate;
    this.#windowMs = settings.windowMs;
    this.#retryAfter = settings.retryAfter;
    this.#logs = new ScopedState(settings.scope, () => new TimeLog());
    this.#latency = settings.latency;
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
