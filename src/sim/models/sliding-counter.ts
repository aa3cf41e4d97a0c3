import { flag, number } from '../../option-rules.js';
import { defineOptions, type OptionsOf } from '../../option-spec.js';
import type { ModelReply, ModelRequest } from './model.js';
import type { Scheduled } from './rate-schedule.js';
import { ScopedState } from './scoped-state.js';
import { ServingModel } from './serving-model.js';
import { WindowCounter } from './window-counter.js';
import { WINDOW_SPEC, windowSettings } from './window-options.js';

const OWNER = 'SlidingCounterModel';
const readOptions = defineOptions(OWNER, {
  /**
   * Refused requests count too (HAProxy's `sc_http_req_rate` tracks every request; so does
   * express-rate-limit): a client that keeps sending while refused stays refused.
   * @default false
   */
  countsRefused: flag(false),
  /**
   * Where windows start on the server's clock, ms.
   * @default 0
   */
  phaseMs: number(0, { min: 0 }),
  ...WINDOW_SPEC,
});

/** Options of {@link SlidingCounterModel}. Latency defaults to 350 ms. */
export interface SlidingCounterOptions extends OptionsOf<typeof readOptions> {}
type Settings = Scheduled<ReturnType<typeof readOptions>>;

/**
 * A sliding-window-counter limiter ({@link WindowCounter}): a request is served while the estimated
 * count over the last `windowMs` is under `floor(rate × windowMs / 1000)`, else refused at once
 * with the time until it is.
 */
export class SlidingCounterModel extends ServingModel<Settings> {
  readonly name = 'sliding-counter';
  readonly #counters = new ScopedState(
    this.settings.scope,
    () => new WindowCounter(this.settings.windowMs, this.settings.phaseMs),
  );

  constructor(options: SlidingCounterOptions = {}) {
    super(windowSettings(OWNER, readOptions(options)));
  }

  arrive(request: ModelRequest): ModelReply {
    const { rate, windowMs, countsRefused } = this.settings;
    const counter = this.#counters.of(request);
    const limit = Math.floor((rate.at(request.at) * windowMs) / 1000);
    if (!counter.admits(request.at, limit)) {
      if (countsRefused) counter.add(request.at);
      return this.refused(request, counter.waitFor(request.at, limit));
    }
    counter.add(request.at);
    return this.served();
  }

  capacity(at: number): number {
    return this.settings.rate.at(at);
  }
}
