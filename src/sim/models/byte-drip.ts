import { number } from '../../option-rules.js';
import { defineOptions, type OptionsOf } from '../../option-spec.js';
import { CLIENT_RATE_SPEC } from './client-rate.js';
import { ClientRateModel } from './client-rate-model.js';
import { latencySpec } from './latency.js';
import type { ModelReply, ModelRequest } from './model.js';
import { sizedReply } from './reply.js';

const OWNER = 'ByteDripModel';
const readOptions = defineOptions(OWNER, {
  /**
   * Body size of every response, bytes.
   * @default 16384
   */
  bodyBytes: number(16_384, { min: 0, integer: true }),
  /**
   * Speed at which a body over the client's free rate is dripped, bytes/s.
   * @default 4096
   */
  bytesPerSecond: number(4096, { min: 1 }),
  ...CLIENT_RATE_SPEC,
  ...latencySpec(150),
});

/** Options of {@link ByteDripModel}. Latency defaults to 150 ms. */
export interface ByteDripOptions extends OptionsOf<typeof readOptions> {}

/**
 * Byte-drip (a soft-throttling form, docs/server-models.md): the status line comes fast, but a
 * request above its client's free rate gets its body at `bytesPerSecond` — the download phase
 * dominates, and large pages suffer most. Requests within the rate get the body at once.
 */
export class ByteDripModel extends ClientRateModel<ReturnType<typeof readOptions>> {
  readonly name = 'drip';

  constructor(options: ByteDripOptions = {}) {
    super(readOptions(options));
  }

  arrive(request: ModelRequest): ModelReply {
    const { bodyBytes, bytesPerSecond } = this.settings;
    const bodyMs = this.over(request) ? (bodyBytes * 1000) / bytesPerSecond : 0;
    return sizedReply(200, bodyBytes, { ttfbMs: this.latency.sample(), bodyMs });
  }
}
