import { rejectUnknownOptions } from '../../options.js';
import { LATENCY_OPTION_NAMES, type Latency, type LatencyOptions, readLatency } from './latency.js';
import type { ModelReply, ServerModel } from './model.js';
import { textReply } from './reply.js';

/** Options of {@link HealthyModel}. Latency defaults to 200 ms. */
export type HealthyOptions = LatencyOptions;

const OWNER = 'HealthyModel';

/**
 * A healthy server: every request is served 200 after a constant latency (plus
 * seeded jitter, if asked). The control case — a controller should ramp up to
 * its ceiling against it and never slow down.
 */
export class HealthyModel implements ServerModel {
  readonly name = 'healthy';
  readonly #latency: Latency;

  constructor(options: HealthyOptions = {}) {
    rejectUnknownOptions(OWNER, options, LATENCY_OPTION_NAMES);
    this.#latency = readLatency(OWNER, options, 200);
  }

  arrive(): ModelReply {
    return textReply(200, { ttfbMs: this.#latency.sample() });
  }

  /** Unbounded. */
  capacity(): undefined {
    return undefined;
  }
}
