import { numberOption, rejectUnknownOptions } from '../../options.js';
import { LATENCY_OPTION_NAMES, type Latency, type LatencyOptions, readLatency } from './latency.js';
import { LIMIT_OPTION_NAMES, type LimitOptions, readLimitOptions } from './limit-options.js';
import type { ModelReply, ModelRequest, ServerModel } from './model.js';
import { type RateInput, RateSchedule } from './rate-schedule.js';
import { textReply } from './reply.js';
import { type RetryAfterForm, retryAfterHeaders } from './retry-after.js';
import { ScopedState } from './scoped-state.js';

/** Options of {@link FixedWindowModel}. Latency defaults to 350 ms (reference 000). */
export interface FixedWindowOptions extends LimitOptions, LatencyOptions {
  /**
   * Hidden capacity in requests/s, constant or on a schedule. A window admits
   * `floor(rate × windowMs / 1000)` requests, at the rate in force when it began.
   * @default 30
   */
  rate?: RateInput;
  /**
   * Window length, ms.
   * @default 1000
   */
  windowMs?: number;
}

const OWNER = 'FixedWindowModel';
const KNOWN = ['rate', 'windowMs', ...LIMIT_OPTION_NAMES, ...LATENCY_OPTION_NAMES];

interface Window {
  start: number | undefined;
  admitted: number;
}

/**
 * A fixed-window limiter as in reference 000's mock: a window begins at the
 * first arrival after the previous one expired; within it the first
 * `floor(rate × windowMs / 1000)` requests are served after the latency, and the
 * rest get 429 at once with a Retry-After (the time left in the window).
 * Rejections do not use up the window.
 */
export class FixedWindowModel implements ServerModel {
  readonly name = 'fixed-window';
  readonly #rate: RateSchedule;
  readonly #windowMs: number;
  readonly #retryAfter: RetryAfterForm;
  readonly #windows: ScopedState<Window>;
  readonly #latency: Latency;

  constructor(options: FixedWindowOptions = {}) {
    rejectUnknownOptions(OWNER, options, KNOWN);
    this.#rate = RateSchedule.from(OWNER, 'rate', options.rate, 30);
    this.#windowMs = numberOption(OWNER, 'windowMs', options.windowMs, 1000, { min: 1 });
    this.#rate.requireOnePerWindow(OWNER, this.#windowMs);
    const limits = readLimitOptions(OWNER, options);
    this.#retryAfter = limits.retryAfter;
    this.#windows = new ScopedState(limits.scope, () => ({ start: undefined, admitted: 0 }));
    this.#latency = readLatency(OWNER, options, 350);
  }

  arrive(request: ModelRequest): ModelReply {
    const window = this.#windows.of(request);
    if (window.start === undefined || request.at - window.start >= this.#windowMs) {
      window.start = request.at;
      window.admitted = 0;
    }
    const limit = Math.floor((this.#rate.at(window.start) * this.#windowMs) / 1000);
    if (window.admitted >= limit) {
      const waitMs = window.start + this.#windowMs - request.at;
      return textReply(429, {
        headers: retryAfterHeaders(this.#retryAfter, waitMs, request.wallAt),
      });
    }
    window.admitted++;
    return textReply(200, { ttfbMs: this.#latency.sample() });
  }

  capacity(at: number): number {
    return this.#rate.at(at);
  }
}
