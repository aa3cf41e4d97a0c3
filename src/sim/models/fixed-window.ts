import { defineOptions, flag } from '../../option-spec.js';
import type { Latency } from './latency.js';
import type { ModelReply, ModelRequest, ServerModel } from './model.js';
import type { RateSchedule } from './rate-schedule.js';
import { textReply } from './reply.js';
import { type RetryAfterForm, retryAfterHeaders } from './retry-after.js';
import { ScopedState } from './scoped-state.js';
import { WINDOW_SPEC, type WindowOptions, windowSettings } from './window-options.js';

/** Options of {@link FixedWindowModel}. Latency defaults to 350 ms, the demo server's. */
export interface FixedWindowOptions extends WindowOptions {
  /**
   * Windows on the clock (`[k × windowMs, (k + 1) × windowMs)`, as a per-minute
   * counter keyed by the minute is) rather than starting at the first arrival
   * after the last one expired (as the demo server does).
   * @default false
   */
  aligned?: boolean;
}

const OWNER = 'FixedWindowModel';
const readOptions = defineOptions<FixedWindowOptions>()(OWNER, {
  aligned: flag(false),
  ...WINDOW_SPEC,
});

interface Window {
  start: number | undefined;
  admitted: number;
}

/**
 * A fixed-window limiter as in the demo server (docs/server-models.md): a window begins at the
 * first arrival after the previous one expired (or on the clock, `aligned`); within it the first
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
  readonly #aligned: boolean;

  constructor(options: FixedWindowOptions = {}) {
    const { aligned, ...rest } = readOptions(options);
    this.#aligned = aligned;
    const settings = windowSettings(OWNER, rest);
    this.#rate = settings.rate;
    this.#windowMs = settings.windowMs;
    this.#retryAfter = settings.retryAfter;
    this.#windows = new ScopedState(settings.scope, () => ({ start: undefined, admitted: 0 }));
    this.#latency = settings.latency;
  }

  arrive(request: ModelRequest): ModelReply {
    const window = this.#windows.of(request);
    if (window.start === undefined || request.at - window.start >= this.#windowMs) {
      window.start = this.#aligned
        ? Math.floor(request.at / this.#windowMs) * this.#windowMs
        : request.at;
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
