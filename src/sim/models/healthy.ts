import { defineOptions } from '../../option-spec.js';
import { type LatencyOptions, latencySpec } from './latency.js';
import type { ModelReply } from './model.js';
import { ServingModel } from './serving-model.js';

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
export class HealthyModel extends ServingModel<ReturnType<typeof readOptions>> {
  readonly name = 'healthy';

  constructor(options: HealthyOptions = {}) {
    super(readOptions(options));
  }

  arrive(): ModelReply {
    return this.served();
  }

  /** Unbounded. */
  capacity(): undefined {
    return undefined;
  }
}
