import { number } from '../../option-rules.js';
import { defineOptions, type OptionsOf } from '../../option-spec.js';
import { latencySpec } from './latency.js';
import type { ModelReply, ModelRequest } from './model.js';
import { textReply } from './reply.js';
import { ServingModel } from './serving-model.js';

const OWNER = 'QueueTimeoutModel';
const readOptions = defineOptions(OWNER, {
  /**
   * Workers serving requests at once.
   * @default 4
   */
  workers: number(4, { min: 1, integer: true }),
  /**
   * How long a request that found every worker busy is held in the queue before
   * the queue's timeout releases it, ms.
   * @default 2000
   */
  holdMs: number(2000, { min: 0 }),
  /**
   * Status of a request released by the timeout: 200 (served degraded, the soft
   * form) or an error such as 503 / 504.
   * @default 200
   */
  heldStatus: number(200, { min: 200, max: 599, integer: true }),
  ...latencySpec(250),
});

/** Options of {@link QueueTimeoutModel}. `latencyMs` is the service time, default 250 ms. */
export interface QueueTimeoutOptions extends OptionsOf<typeof readOptions> {}

/**
 * Queue-with-timeout (a soft-throttling form, docs/server-models.md): a request that finds an idle
 * worker is served in `latencyMs`; one that finds all `workers` busy waits in the queue until the
 * timeout releases it after `holdMs`. Latency turns bimodal — fast for some requests, uniformly
 * slow for the rest. A worker is busy for the service time of its request, decided at arrival (no
 * `finish` needed); held requests occupy no worker.
 */
export class QueueTimeoutModel extends ServingModel<ReturnType<typeof readOptions>> {
  readonly name = 'queue-timeout';
  readonly #busyUntil = new Array<number>(this.settings.workers).fill(-Infinity);

  constructor(options: QueueTimeoutOptions = {}) {
    super(readOptions(options));
  }

  arrive(request: ModelRequest): ModelReply {
    const idle = this.#busyUntil.findIndex((until) => until <= request.at);
    if (idle === -1) return textReply(this.settings.heldStatus, { ttfbMs: this.settings.holdMs });
    const serviceMs = this.latency.sample();
    this.#busyUntil[idle] = request.at + serviceMs;
    return textReply(200, { ttfbMs: serviceMs });
  }

  /** `workers / service time`, or `undefined` with zero service time. */
  capacity(): number | undefined {
    const { baseMs } = this.latency;
    return baseMs > 0 ? (this.settings.workers * 1000) / baseMs : undefined;
  }
}
