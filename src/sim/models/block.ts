import { numberOption, rejectUnknownOptions } from '../../options.js';
import { BlockList, blockPageReply } from './block-page.js';
import { LATENCY_OPTION_NAMES, type Latency, type LatencyOptions, readLatency } from './latency.js';
import type { ModelReply, ModelRequest, ServerModel } from './model.js';
import { textReply } from './reply.js';
import { ClientWindow } from './time-log.js';

/** Options of {@link BlockModel}. Latency defaults to 200 ms. */
export interface BlockOptions extends LatencyOptions {
  /**
   * Requests a client (IP or session) may send before it is blocked.
   * @default 300
   */
  threshold?: number;
  /**
   * Span over which the client's requests are counted, ms (`Infinity`: its whole life).
   * @default Infinity
   */
  windowMs?: number;
  /**
   * How long a block lasts, ms (`Infinity`: until the client changes identity).
   * @default Infinity
   */
  blockMs?: number;
}

const OWNER = 'BlockModel';
const KNOWN = ['threshold', 'windowMs', 'blockMs', ...LATENCY_OPTION_NAMES];

/**
 * An anti-bot wall: a client's first `threshold` requests (within `windowMs`)
 * are served; from the next one on it gets a 403 HTML block page with a captcha
 * marker — slowing down does not help, only a new session does.
 */
export class BlockModel implements ServerModel {
  readonly name = 'block';
  readonly #threshold: number;
  readonly #blockMs: number;
  readonly #counts: ClientWindow;
  readonly #blocks = new BlockList();
  readonly #latency: Latency;

  constructor(options: BlockOptions = {}) {
    rejectUnknownOptions(OWNER, options, KNOWN);
    this.#threshold = numberOption(OWNER, 'threshold', options.threshold, 300, {
      min: 0,
      integer: true,
    });
    const windowMs = numberOption(OWNER, 'windowMs', options.windowMs, Infinity, {
      min: 1,
      infinite: true,
    });
    this.#blockMs = numberOption(OWNER, 'blockMs', options.blockMs, Infinity, {
      min: 0,
      infinite: true,
    });
    this.#counts = new ClientWindow(windowMs);
    this.#latency = readLatency(OWNER, options, 200);
  }

  arrive(request: ModelRequest): ModelReply {
    const { client, at } = request;
    const ttfbMs = this.#latency.sample();
    if (this.#blocks.blocked(client, at, () => this.#counts.forget(client))) {
      return blockPageReply(ttfbMs);
    }
    if (this.#counts.record(client, at) > this.#threshold) {
      this.#blocks.block(client, at, this.#blockMs);
      return blockPageReply(ttfbMs);
    }
    return textReply(200, { ttfbMs });
  }

  /** No rate capacity: the limit is a request count per client. */
  capacity(): undefined {
    return undefined;
  }
}
