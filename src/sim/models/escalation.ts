import { choiceOption, numberOption, rejectUnknownOptions } from '../../options.js';
import { BlockList, blockPageReply } from './block-page.js';
import {
  CLIENT_RATE_OPTION_NAMES,
  type ClientRateOptions,
  ClientRateTrigger,
} from './client-rate.js';
import { LATENCY_OPTION_NAMES, type Latency, type LatencyOptions, readLatency } from './latency.js';
import type { ModelReply, ModelRequest, ServerModel } from './model.js';
import { textReply } from './reply.js';
import { RETRY_AFTER_FORMS, type RetryAfterForm, retryAfterHeaders } from './retry-after.js';
import { ClientWindow } from './time-log.js';

/** Options of {@link EscalationModel}. Latency defaults to 200 ms. */
export interface EscalationOptions extends ClientRateOptions, LatencyOptions {
  /**
   * Extra time to first byte of a request answered in the soft stage, ms.
   * @default 1000
   */
  delayMs?: number;
  /**
   * Strikes (requests over the client's free rate) answered by delay alone.
   * @default 20
   */
  softStrikes?: number;
  /**
   * Strikes after which the client is blocked; strikes between `softStrikes`
   * and this get 429. Must be at least `softStrikes`.
   * @default 100
   */
  blockStrikes?: number;
  /**
   * How long a strike is remembered, ms.
   * @default 600000
   */
  memoryMs?: number;
  /**
   * How long a block lasts, ms (`Infinity`: until the client changes identity).
   * @default Infinity
   */
  blockMs?: number;
  /**
   * Retry-After form on the 429s (the wait stated is `windowMs`).
   * @default 'seconds'
   */
  retryAfter?: RetryAfterForm;
}

const OWNER = 'EscalationModel';
const KNOWN = [
  'delayMs',
  'softStrikes',
  'blockStrikes',
  'memoryMs',
  'blockMs',
  'retryAfter',
  ...CLIENT_RATE_OPTION_NAMES,
  ...LATENCY_OPTION_NAMES,
];

/**
 * Escalating throttling (a soft-throttling form, docs/server-models.md): each request over the
 * client's free rate is a strike. The first `softStrikes` strikes are only delayed (soft), the next
 * ones up to `blockStrikes` get 429 (hard), and the strike after that blocks the client with a 403
 * captcha page. Requests within the rate are served normally until the block.
 */
export class EscalationModel implements ServerModel {
  readonly name = 'escalation';
  readonly #delayMs: number;
  readonly #softStrikes: number;
  readonly #blockStrikes: number;
  readonly #blockMs: number;
  readonly #retryAfter: RetryAfterForm;
  readonly #trigger: ClientRateTrigger;
  readonly #strikes: ClientWindow;
  readonly #blocks = new BlockList();
  readonly #latency: Latency;

  constructor(options: EscalationOptions = {}) {
    rejectUnknownOptions(OWNER, options, KNOWN);
    this.#delayMs = numberOption(OWNER, 'delayMs', options.delayMs, 1000, { min: 0 });
    const integer = { min: 0, integer: true };
    this.#softStrikes = numberOption(OWNER, 'softStrikes', options.softStrikes, 20, integer);
    this.#blockStrikes = numberOption(OWNER, 'blockStrikes', options.blockStrikes, 100, {
      ...integer,
      min: this.#softStrikes,
    });
    const memoryMs = numberOption(OWNER, 'memoryMs', options.memoryMs, 600_000, {
      min: 1,
      infinite: true,
    });
    this.#blockMs = numberOption(OWNER, 'blockMs', options.blockMs, Infinity, {
      min: 0,
      infinite: true,
    });
    this.#retryAfter = choiceOption(
      OWNER,
      'retryAfter',
      options.retryAfter,
      'seconds',
      RETRY_AFTER_FORMS,
    );
    this.#trigger = new ClientRateTrigger(OWNER, options);
    this.#strikes = new ClientWindow(memoryMs);
    this.#latency = readLatency(OWNER, options, 200);
  }

  arrive(request: ModelRequest): ModelReply {
    const { client, at } = request;
    if (this.#blocks.blocked(client, at, () => this.#strikes.forget(client))) {
      return blockPageReply(this.#latency.sample());
    }
    if (!this.#trigger.over(request)) return textReply(200, { ttfbMs: this.#latency.sample() });
    const strikes = this.#strikes.record(client, at);
    if (strikes <= this.#softStrikes) {
      return textReply(200, { ttfbMs: this.#latency.sample() + this.#delayMs });
    }
    if (strikes <= this.#blockStrikes) {
      const headers = retryAfterHeaders(this.#retryAfter, this.#trigger.windowMs, request.wallAt);
      return textReply(429, { headers });
    }
    this.#blocks.block(client, at, this.#blockMs);
    return blockPageReply(this.#latency.sample());
  }

  /** The free rate per client, requests/s (`undefined` when 0). */
  capacity(): number | undefined {
    return this.#trigger.rate > 0 ? this.#trigger.rate : undefined;
  }
}
