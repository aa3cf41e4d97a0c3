import { defineOptions } from '../../option-spec.js';
import { type Latency, type LatencyOptions, latencyOf, latencySpec } from './latency.js';
import type { ModelReply, ServerModel } from './model.js';
import { textReply } from './reply.js';

/** Options of {@link HealthyModel}. Latency defaults to 200 ms. */
export type HealthyOptions = LatencyOptions;

const OWNER = 'HealthyModel';
const readOptions = defineOptions<HealthyOptions>()(OWNER, {
  ...latencySpec(200),
});

/**
 * A healthy server: every request is served 200 after a constant latency (plus
 * seeded jitter, if asked). The control case — a controller should ramp up to
 * its ceiling against it and never slow down.
 */
export class HealthyModel implements ServerModel {
  readonly name = 'healthy';
  readonly #latency: Latency;

  constructor(options: HealthyOptions = {}) {
    this.#latency = latencyOf(readOptions(options));
  }

  arrive(): ModelReply {
    return textReply(200, { ttfbMs: this.#latency.sample() });
  }

  /** Unbounded. */
  capacity(): undefined {
    return undefined;
  }
}
