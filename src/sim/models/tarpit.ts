import { number } from '../../option-rules.js';
import { defineOptions, type OptionsOf } from '../../option-spec.js';
import { CLIENT_RATE_SPEC } from './client-rate.js';
import { ClientRateModel } from './client-rate-model.js';
import { latencySpec } from './latency.js';
import type { ModelReply, ModelRequest } from './model.js';

const OWNER = 'TarpitModel';
const readOptions = defineOptions(OWNER, {
  /**
   * How long a request over the client's free rate is held before its first byte, ms.
   * @default 1500
   */
  delayMs: number(1500, { min: 0 }),
  ...CLIENT_RATE_SPEC,
  ...latencySpec(150),
});

/** Options of {@link TarpitModel}. Latency defaults to 150 ms. */
export interface TarpitOptions extends OptionsOf<typeof readOptions> {}

/**
 * Tarpit (a soft-throttling form, docs/server-models.md): a request above its client's free rate is
 * still answered 200, but only after being held `delayMs` before the first byte — time to first
 * byte inflates while the body arrives at normal speed.
 */
export class TarpitModel extends ClientRateModel<ReturnType<typeof readOptions>> {
  readonly name = 'tarpit';

  constructor(options: TarpitOptions = {}) {
    super(readOptions(options));
  }

  arrive(request: ModelRequest): ModelReply {
    return this.served(this.over(request) ? this.settings.delayMs : 0);
  }
}
