import { defineOptions } from '../../option-spec.js';
import type { ModelReply, ModelRequest } from './model.js';
import type { Scheduled } from './rate-schedule.js';
import { ScopedState } from './scoped-state.js';
import { ServingModel } from './serving-model.js';
import { TimeLog } from './time-log.js';
import { WINDOW_SPEC, type WindowOptions, windowSettings } from './window-options.js';

/** Options of {@link SlidingLogModel}. Latency defaults to 350 ms. */
export type SlidingLogOptions = WindowOptions;

const OWNER = 'SlidingLogModel';
const readOptions = defineOptions<WindowOptions>()(OWNER, WINDOW_SPEC);
type Settings = Scheduled<ReturnType<typeof readOptions>>;

/**
 * A sliding-window log limiter: it remembers the arrival time of every served
 * request and admits a new one only while fewer than the limit were served in
 * the last `windowMs`. A rejection's Retry-After is the time until enough of
 * the log expires. Rejections are not logged.
 */
export class SlidingLogModel extends ServingModel<Settings> {
  readonly name = 'sliding-log';
  readonly #logs = new ScopedState(this.settings.scope, () => new TimeLog());

  constructor(options: SlidingLogOptions = {}) {
    super(windowSettings(OWNER, readOptions(options)));
  }

  arrive(request: ModelRequest): ModelReply {
    const { rate, windowMs } = this.settings;
    const log = this.#logs.of(request);
    log.expire(request.at - windowMs);
    const limit = Math.floor((rate.at(request.at) * windowMs) / 1000);
    if (log.size >= limit) {
      const freeing = log.nth(log.size - limit);
      const waitMs = freeing === undefined ? windowMs : freeing + windowMs - request.at;
      return this.refused(request, waitMs);
    }
    log.push(request.at);
    return this.served();
  }

  capacity(at: number): number {
    return this.settings.rate.at(at);
  }
}
