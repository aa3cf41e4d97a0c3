import { numberOption, rejectUnknownOptions } from '../../options.js';
import {
  CLIENT_RATE_OPTION_NAMES,
  type ClientRateOptions,
  ClientRateTrigger,
} from './client-rate.js';
import { LATENCY_OPTION_NAMES, type Latency, type LatencyOptions, readLatency } from './latency.js';
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
const KNOWN = ['delayMs', ...CLIENT_RATE_OPTION_NAMES, ...LATENCY_OPTION_NAMES];

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
    rejectUnknownOptions(OWNER, options, KNOWN);
    this.#delayMs = numberOption(OWNER, 'delayMs', options.delayMs, 1500, { min: 0 });
    this.#trigger = new ClientRateTrigger(OWNER, options);
    this.#latency = readLatency(OWNER, options, 150);
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
