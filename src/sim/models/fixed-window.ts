import { flag } from '../../option-rules.js';
import { defineOptions, type OptionsOf } from '../../option-spec.js';
import type { ModelReply, ModelRequest } from './model.js';
import type { Scheduled } from './rate-schedule.js';
import { ScopedState } from './scoped-state.js';
import { ServingModel } from './serving-model.js';
import { WINDOW_SPEC, windowSettings } from './window-options.js';

const OWNER = 'FixedWindowModel';
const readOptions = defineOptions(OWNER, {
  /**
   * Windows on the clock (`[k × windowMs, (k + 1) × windowMs)`, as a per-minute
   * counter keyed by the minute is) rather than starting at the first arrival
   * after the last one expired (as the demo server does).
   * @default false
   */
  aligned: flag(false),
  ...WINDOW_SPEC,
});

/** Options of {@link FixedWindowModel}. Latency defaults to 350 ms, the demo server's. */
export interface FixedWindowOptions extends OptionsOf<typeof readOptions> {}
type Settings = Scheduled<ReturnType<typeof readOptions>>;

interface Window {
  start: number | undefined;
  admitted: number;
}

/**
 * A fixed-window limiter as in the demo server (docs/server-models.md): a window begins at the
 * first arrival after the previous one expired (or on the clock, `aligned`); within it the first
 * `floor(rate × windowMs / 1000)` requests are served after the latency, and the
 * rest get 429 at once with a Retry-After (the time left in the window).
 * Rejections do not use up the window.
 */
export class FixedWindowModel extends ServingModel<Settings> {
  readonly name = 'fixed-window';
  readonly #windows = new ScopedState<Window>(this.settings.scope, () => ({
    start: undefined,
    admitted: 0,
  }));

  constructor(options: FixedWindowOptions = {}) {
    super(windowSettings(OWNER, readOptions(options)));
  }

  arrive(request: ModelRequest): ModelReply {
    const { rate, windowMs, aligned } = this.settings;
    const window = this.#windows.of(request);
    if (window.start === undefined || request.at - window.start >= windowMs) {
      window.start = aligned ? Math.floor(request.at / windowMs) * windowMs : request.at;
      window.admitted = 0;
    }
    const limit = Math.floor((rate.at(window.start) * windowMs) / 1000);
    if (window.admitted >= limit)
      return this.refused(request, window.start + windowMs - request.at);
    window.admitted++;
    return this.served();
  }

  capacity(at: number): number {
    return this.settings.rate.at(at);
  }
}
