import { choice, number } from '../../option-rules.js';
import { defineOptions, type OptionsOf } from '../../option-spec.js';
import { BlockList, blockPageReply } from './block-page.js';
import { CLIENT_RATE_SPEC } from './client-rate.js';
import { ClientRateModel } from './client-rate-model.js';
import { latencySpec } from './latency.js';
import type { ModelReply, ModelRequest } from './model.js';
import { RETRY_AFTER_FORMS } from './retry-after.js';
import { ClientWindow } from './time-log.js';

const OWNER = 'EscalationModel';
const readOptions = defineOptions(OWNER, {
  /**
   * Extra time to first byte of a request answered in the soft stage, ms.
   * @default 1000
   */
  delayMs: number(1000, { min: 0 }),
  /**
   * Strikes (requests over the client's free rate) answered by delay alone.
   * @default 20
   */
  softStrikes: number(20, { min: 0, integer: true }),
  /**
   * Strikes after which the client is blocked; strikes between `softStrikes`
   * and this get 429. Must be at least `softStrikes`.
   * @default 100
   */
  blockStrikes: number(100, (earlier) => ({ min: earlier.softStrikes as number, integer: true })),
  /**
   * How long a strike is remembered, ms.
   * @default 600000
   */
  memoryMs: number(600_000, { min: 1, infinite: true }),
  /**
   * How long a block lasts, ms (`Infinity`: until the client changes identity).
   * @default Infinity
   */
  blockMs: number(Infinity, { min: 0, infinite: true }),
  /**
   * Retry-After form on the 429s (the wait stated is `windowMs`).
   * @default 'seconds'
   */
  retryAfter: choice('seconds', RETRY_AFTER_FORMS),
  ...CLIENT_RATE_SPEC,
  ...latencySpec(200),
});

/** Options of {@link EscalationModel}. Latency defaults to 200 ms. */
export interface EscalationOptions extends OptionsOf<typeof readOptions> {}

/**
 * Escalating throttling (a soft-throttling form, docs/server-models.md): each request over the
 * client's free rate is a strike. The first `softStrikes` strikes are only delayed (soft), the next
 * ones up to `blockStrikes` get 429 (hard), and the strike after that blocks the client with a 403
 * captcha page. Requests within the rate are served normally until the block.
 */
export class EscalationModel extends ClientRateModel<ReturnType<typeof readOptions>> {
  readonly name = 'escalation';
  readonly #strikes = new ClientWindow(this.settings.memoryMs);
  readonly #blocks = new BlockList();

  constructor(options: EscalationOptions = {}) {
    super(readOptions(options));
  }

  arrive(request: ModelRequest): ModelReply {
    const { client, at } = request;
    const { delayMs, softStrikes, blockStrikes, blockMs, windowMs } = this.settings;
    if (this.#blocks.blocked(client, at, () => this.#strikes.forget(client))) {
      return blockPageReply(this.latency.sample());
    }
    if (!this.over(request)) return this.served();
    const strikes = this.#strikes.record(client, at);
    if (strikes <= softStrikes) return this.served(delayMs);
    if (strikes <= blockStrikes) return this.refused(request, windowMs);
    this.#blocks.block(client, at, blockMs);
    return blockPageReply(this.latency.sample());
  }
}
