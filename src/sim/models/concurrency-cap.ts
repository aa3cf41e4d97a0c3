import { choice, number } from '../../option-rules.js';
import { defineOptions, type OptionsOf } from '../../option-spec.js';
import { latencySpec } from './latency.js';
import type { ModelReply, ModelRequest } from './model.js';
import { RETRY_AFTER_FORMS } from './retry-after.js';
import { ServingModel } from './serving-model.js';

const OWNER = 'ConcurrencyCapModel';
const readOptions = defineOptions(OWNER, {
  /**
   * Requests served at once; the one after is rejected.
   * @default 10
   */
  limit: number(10, { min: 1, integer: true }),
  /**
   * Status of the rejection.
   * @default 503
   */
  status: number(503, { min: 400, max: 599, integer: true }),
  /**
   * Retry-After form on the rejection (the wait stated is one latency).
   * @default 'none'
   */
  retryAfter: choice('none', RETRY_AFTER_FORMS),
  ...latencySpec(350),
});

/** Options of {@link ConcurrencyCapModel}. Latency defaults to 350 ms. */
export interface ConcurrencyCapOptions extends OptionsOf<typeof readOptions> {}

/**
 * A server with `limit` workers: while `limit` requests are in flight (arrived
 * and not yet finished), the next one is rejected at once with 503. Needs
 * `finish` for every arrival.
 */
export class ConcurrencyCapModel extends ServingModel<ReturnType<typeof readOptions>> {
  readonly name = 'concurrency-cap';
  readonly #serving = new Set<number>();

  constructor(options: ConcurrencyCapOptions = {}) {
    super(readOptions(options));
  }

  /** Requests currently being served. */
  get inFlight(): number {
    return this.#serving.size;
  }

  arrive(request: ModelRequest): ModelReply {
    if (this.#serving.size >= this.settings.limit) {
      return this.refused(request, this.latency.baseMs, this.settings.status);
    }
    this.#serving.add(request.id);
    return this.served();
  }

  finish(request: ModelRequest): void {
    this.#serving.delete(request.id);
  }

  /** `limit / latency` (Little's law), or `undefined` with zero latency. */
  capacity(): number | undefined {
    const { baseMs } = this.latency;
    return baseMs > 0 ? (this.settings.limit * 1000) / baseMs : undefined;
  }
}
