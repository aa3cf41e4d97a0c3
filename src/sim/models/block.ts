import { number } from '../../option-rules.js';
import { defineOptions, type OptionsOf } from '../../option-spec.js';
import { BlockList, blockPageReply } from './block-page.js';
import { latencySpec } from './latency.js';
import type { ModelReply, ModelRequest } from './model.js';
import { textReply } from './reply.js';
import { ServingModel } from './serving-model.js';
import { ClientWindow } from './time-log.js';

const OWNER = 'BlockModel';
const readOptions = defineOptions(OWNER, {
  /**
   * Requests a client (IP or session) may send before it is blocked.
   * @default 300
   */
  threshold: number(300, { min: 0, integer: true }),
  /**
   * Span over which the client's requests are counted, ms (`Infinity`: its whole life).
   * @default Infinity
   */
  windowMs: number(Infinity, { min: 1, infinite: true }),
  /**
   * How long a block lasts, ms (`Infinity`: until the client changes identity).
   * @default Infinity
   */
  blockMs: number(Infinity, { min: 0, infinite: true }),
  ...latencySpec(200),
});

/** Options of {@link BlockModel}. Latency defaults to 200 ms. */
export interface BlockOptions extends OptionsOf<typeof readOptions> {}

/**
 * An anti-bot wall: a client's first `threshold` requests (within `windowMs`)
 * are served; from the next one on it gets a 403 HTML block page with a captcha
 * marker — slowing down does not help, only a new session does.
 */
export class BlockModel extends ServingModel<ReturnType<typeof readOptions>> {
  readonly name = 'block';
  readonly #counts = new ClientWindow(this.settings.windowMs);
  readonly #blocks = new BlockList();

  constructor(options: BlockOptions = {}) {
    super(readOptions(options));
  }

  arrive(request: ModelRequest): ModelReply {
    const { client, at } = request;
    const ttfbMs = this.latency.sample();
    if (this.#blocks.blocked(client, at, () => this.#counts.forget(client))) {
      return blockPageReply(ttfbMs);
    }
    if (this.#counts.record(client, at) > this.settings.threshold) {
      this.#blocks.block(client, at, this.settings.blockMs);
      return blockPageReply(ttfbMs);
    }
    return textReply(200, { ttfbMs });
  }

  /** No rate capacity: the limit is a request count per client. */
  capacity(): undefined {
    return undefined;
  }
}
