import { defineOptions, number } from '../../option-spec.js';
import { CLIENT_RATE_SPEC, type ClientRateOptions, ClientRateTrigger } from './client-rate.js';
import { type Latency, type LatencyOptions, latencyOf, latencySpec } from './latency.js';
import type { ModelReply, ModelRequest, ServerModel } from './model.js';
import { sizedReply } from './reply.js';

/** Options of {@link ByteDripModel}. Latency defaults to 150 ms. */
export interface ByteDripOptions extends ClientRateOptions, LatencyOptions {
  /**
   * Body size of every response, bytes.
   * @default 16384
   */
  bodyBytes?: number;
  /**
   * Speed at which a body over the client's free rate is dripped, bytes/s.
   * @default 4096
   */
  bytesPerSecond?: number;
}

const OWNER = 'ByteDripModel';
const readOptions = defineOptions<ByteDripOptions>()(OWNER, {
  bodyBytes: number(16_384, { min: 0, integer: true }),
  bytesPerSecond: number(4096, { min: 1 }),
  ...CLIENT_RATE_SPEC,
  ...latencySpec(150),
});

/**
 * Byte-drip (a soft-throttling form, docs/server-models.md): the status line comes fast, but a
 * request above its client's free rate gets its body at `bytesPerSecond` — the download phase
 * dominates, and large pages suffer most. Requests within the rate get the body at once.
 */
export class ByteDripModel implements ServerModel {
  readonly name = 'drip';
  readonly #bodyBytes: number;
  readonly #bytesPerSecond: number;
  readonly #trigger: ClientRateTrigger;
  readonly #latency: Latency;

  constructor(options: ByteDripOptions = {}) {
    const settings = readOptions(options);
    this.#bodyBytes = settings.bodyBytes;
    this.#bytesPerSecond = settings.bytesPerSecond;
    this.#trigger = new ClientRateTrigger(settings);
    this.#latency = latencyOf(settings);
  }

  arrive(request: ModelRequest): ModelReply {
    const dripped = this.#trigger.over(request);
    const bodyMs = dripped ? (this.#bodyBytes * 1000) / this.#bytesPerSecond : 0;
    return sizedReply(200, this.#bodyBytes, { ttfbMs: this.#latency.sample(), bodyMs });
  }

  /** The free rate per client, requests/s (`undefined` when 0: everything drips). */
  capacity(): number | undefined {
    return this.#trigger.rate > 0 ? this.#trigger.rate : undefined;
  }
}
