import { defineOptions, number } from '../../option-spec.js';
import { CLIENT_RATE_SPEC, type ClientRateOptions, ClientRateTrigger } from './client-rate.js';
import { type Latency, type LatencyOptions, latencyOf, latencySpec } from './latency.js';
import type { ModelReply, ModelRequest, ServerModel } from './model.js';
import { textReply } from './reply.js';

/** Options of {@link TarpitModel}. Latency defaults to 150 ms. */
export interface TarpitOptions extends ClientRateOptions, LatencyOptions {
  /**
   * How long a request over the client's free rate is held before its first byte, ms.
   * @default 1500
   */
  delayMs?: number;
}

const OWNER = 'TarpitModel';
const readOptions = defineOptions<TarpitOptions>()(OWNER, {
  delayMs: number(1500, { min: 0 }),
  ...CLIENT_RATE_SPEC,
  ...latencySpec(150),
});

/**
 * Tarpit (a soft-throttling form, docs/server-models.md): a request above its client's free rate is
 * still answered 200, but only after being held `delayMs` before the first byte — time to first
 * byte inflates while the body arrives at normal speed.
 */
export class TarpitModel implements ServerModel {
  readonly name = 'tarpit';
  readonly #delayMs: number;
  readonly #trigger: ClientRateTrigger;
  readonly #latency: Latency;

  constructor(options: TarpitOptions = {}) {
    const settings = readOptions(options);
    this.#delayMs = settings.delayMs;
    this.#trigger = new ClientRateTrigger(settings);
    this.#latency = latencyOf(settings);
  }

  arrive(request: ModelRequest): ModelReply {
    const held = this.#trigger.over(request) ? this.#delayMs : 0;
    return textReply(200, { ttfbMs: this.#latency.sample() + held });
  }

  /** The free rate per client, requests/s (`undefined` when 0: everything is tarpitted). */
  capacity(): number | undefined {
    return this.#trigger.rate > 0 ? this.#trigger.rate : undefined;
  }
}
