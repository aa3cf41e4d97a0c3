import { defineOptions, given, number } from '../../option-spec.js';
import { type Latency, type LatencyOptions, latencyOf, latencySpec } from './latency.js';
import { LIMIT_SPEC, type LimitOptions } from './limit-options.js';
import type { ModelReply, ModelRequest, ServerModel } from './model.js';
import { type RateInput, RateSchedule } from './rate-schedule.js';
import { textReply } from './reply.js';
import { type RetryAfterForm, retryAfterHeaders } from './retry-after.js';
import { ScopedState } from './scoped-state.js';

/** Options of {@link GcraModel}. Latency defaults to 350 ms. */
export interface GcraOptions extends LimitOptions, LatencyOptions {
  /**
   * Sustained rate in requests/s, constant or on a schedule.
   * @default 30
   */
  rate?: RateInput;
  /**
   * Requests that may arrive back to back on top of the sustained rate (the
   * tolerance, in emission intervals).
   * @default 1
   */
  burst?: number;
}

const OWNER = 'GcraModel';
const readOptions = defineOptions<GcraOptions>()(OWNER, {
  rate: given(),
  burst: number(1, { min: 0 }),
  ...LIMIT_SPEC,
  ...latencySpec(350),
});

/**
 * The generic cell rate algorithm (redis-cell, Stripe, many API gateways):
 * one theoretical arrival time (TAT) per key. A request at `t` conforms when
 * `t >= TAT - burst × T` (T = 1 / rate); it then moves the TAT to
 * `max(TAT, t) + T`. A non-conforming request is refused at once with the
 * time until it would conform; refusals do not move the TAT.
 */
export class GcraModel implements ServerModel {
  readonly name = 'gcra';
  readonly #rate: RateSchedule;
  readonly #burst: number;
  readonly #retryAfter: RetryAfterForm;
  readonly #tat: ScopedState<{ at: number }>;
  readonly #latency: Latency;

  constructor(options: GcraOptions = {}) {
    const settings = readOptions(options);
    this.#rate = RateSchedule.from(OWNER, 'rate', settings.rate, 30);
    this.#burst = settings.burst;
    this.#retryAfter = settings.retryAfter;
    this.#tat = new ScopedState(settings.scope, () => ({ at: -Infinity }));
    this.#latency = latencyOf(settings);
  }

  arrive(request: ModelRequest): ModelReply {
    const tat = this.#tat.of(request);
    const intervalMs = 1000 / this.#rate.at(request.at);
    const conformsAt = tat.at - this.#burst * intervalMs;
    if (request.at < conformsAt) {
      return textReply(429, {
        headers: retryAfterHeaders(this.#retryAfter, conformsAt - request.at, request.wallAt),
      });
    }
    tat.at = Math.max(tat.at, request.at) + intervalMs;
    return textReply(200, { ttfbMs: this.#latency.sample() });
  }

  capacity(at: number): number {
    return this.#rate.at(at);
  }
}
