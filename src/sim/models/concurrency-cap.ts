import { choice, defineOptions, number } from '../../option-spec.js';
import { type Latency, type LatencyOptions, latencyOf, latencySpec } from './latency.js';
import type { ModelReply, ModelRequest, ServerModel } from './model.js';
import { textReply } from './reply.js';
import { RETRY_AFTER_FORMS, type RetryAfterForm, retryAfterHeaders } from './retry-after.js';

/** Options of {@link ConcurrencyCapModel}. Latency defaults to 350 ms. */
export interface ConcurrencyCapOptions extends LatencyOptions {
  /**
   * Requests served at once; the one after is rejected.
   * @default 10
   */
  limit?: number;
  /**
   * Status of the rejection.
   * @default 503
   */
  status?: number;
  /**
   * Retry-After form on the rejection (the wait stated is one latency).
   * @default 'none'
   */
  retryAfter?: RetryAfterForm;
}

const OWNER = 'ConcurrencyCapModel';
const readOptions = defineOptions<ConcurrencyCapOptions>()(OWNER, {
  limit: number(10, { min: 1, integer: true }),
  status: number(503, { min: 400, max: 599, integer: true }),
  retryAfter: choice('none', RETRY_AFTER_FORMS),
  ...latencySpec(350),
});

/**
 * A server with `limit` workers: while `limit` requests are in flight (arrived
 * and not yet finished), the next one is rejected at once with 503. Needs
 * `finish` for every arrival.
 */
export class ConcurrencyCapModel implements ServerModel {
  readonly name = 'concurrency-cap';
  readonly #limit: number;
  readonly #status: number;
  readonly #retryAfter: RetryAfterForm;
  readonly #latency: Latency;
  readonly #serving = new Set<number>();

  constructor(options: ConcurrencyCapOptions = {}) {
    const settings = readOptions(options);
    this.#limit = settings.limit;
    this.#status = settings.status;
    this.#retryAfter = settings.retryAfter;
    this.#latency = latencyOf(settings);
  }

  /** Requests currently being served. */
  get inFlight(): number {
    return this.#serving.size;
  }

  arrive(request: ModelRequest): ModelReply {
    if (this.#serving.size >= this.#limit) {
      return textReply(this.#status, {
        headers: retryAfterHeaders(this.#retryAfter, this.#latency.baseMs, request.wallAt),
      });
    }
    this.#serving.add(request.id);
    return textReply(200, { ttfbMs: this.#latency.sample() });
  }

  finish(request: ModelRequest): void {
    this.#serving.delete(request.id);
  }

  /** `limit / latency` (Little's law), or `undefined` with zero latency. */
  capacity(): number | undefined {
    return this.#latency.baseMs > 0 ? (this.#limit * 1000) / this.#latency.baseMs : undefined;
  }
}
