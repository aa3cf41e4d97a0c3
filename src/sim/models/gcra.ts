import { given, number } from '../../option-rules.js';
import { defineOptions, type OptionsOf } from '../../option-spec.js';
import { latencySpec } from './latency.js';
import { LIMIT_SPEC } from './limit-options.js';
import type { ModelReply, ModelRequest } from './model.js';
import { type RateInput, type Scheduled, withRateSchedule } from './rate-schedule.js';
import { ScopedState } from './scoped-state.js';
import { ServingModel } from './serving-model.js';

const OWNER = 'GcraModel';
const readOptions = defineOptions(OWNER, {
  /**
   * Sustained rate in requests/s, constant or on a schedule.
   * @default 30
   */
  rate: given<RateInput>(),
  /**
   * Requests that may arrive back to back on top of the sustained rate (the
   * tolerance, in emission intervals).
   * @default 1
   */
  burst: number(1, { min: 0 }),
  ...LIMIT_SPEC,
  ...latencySpec(350),
});

/** Options of {@link GcraModel}. Latency defaults to 350 ms. */
export interface GcraOptions extends OptionsOf<typeof readOptions> {}

type Settings = Scheduled<ReturnType<typeof readOptions>>;

/**
 * The generic cell rate algorithm (redis-cell, Stripe, many API gateways):
 * one theoretical arrival time (TAT) per key. A request at `t` conforms when
 * `t >= TAT - burst × T` (T = 1 / rate); it then moves the TAT to
 * `max(TAT, t) + T`. A non-conforming request is refused at once with the
 * time until it would conform; refusals do not move the TAT.
 */
export class GcraModel extends ServingModel<Settings> {
  readonly name = 'gcra';
  readonly #tat = new ScopedState(this.settings.scope, () => ({ at: -Infinity }));

  constructor(options: GcraOptions = {}) {
    super(withRateSchedule(OWNER, readOptions(options)));
  }

  arrive(request: ModelRequest): ModelReply {
    const tat = this.#tat.of(request);
    const intervalMs = 1000 / this.settings.rate.at(request.at);
    const conformsAt = tat.at - this.settings.burst * intervalMs;
    if (request.at < conformsAt) return this.refused(request, conformsAt - request.at);
    tat.at = Math.max(tat.at, request.at) + intervalMs;
    return this.served();
  }

  capacity(at: number): number {
    return this.settings.rate.at(at);
  }
}
