import { defineOptions, number, type OptionsOf } from '../../option-spec.js';
import { CLIENT_RATE_SPEC, ClientRateTrigger } from './client-rate.js';
import { latencySpec } from './latency.js';
import type { ModelReply, ModelRequest } from './model.js';
import { ServingModel } from './serving-model.js';

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
export class TarpitModel extends ServingModel<ReturnType<typeof readOptions>> {
  readonly name = 'tarpit';
  readonly #trigger = new ClientRateTrigger(this.settings);

  constructor(options: TarpitOptions = {}) {
    super(readOptions(options));
  }

  arrive(request: ModelRequest): ModelReply {
    return this.served(this.#trigger.over(request) ? this.settings.delayMs : 0);
  }

  /** The free rate per client (`undefined` when 0: everything is tarpitted). */
  capacity(): number | undefined {
    return this.#trigger.capacity();
  }
}
