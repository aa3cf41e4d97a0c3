import { number } from '../../option-rules.js';
import { defineOptions, type OptionsOf } from '../../option-spec.js';
import type { ModelReply, ModelRequest } from './model.js';
import type { Scheduled } from './rate-schedule.js';
import { ScopedState } from './scoped-state.js';
import { ServingModel } from './serving-model.js';
import { WindowCounter } from './window-counter.js';
import { WINDOW_SPEC, windowSettings } from './window-options.js';

const OWNER = 'PenaltyBoxModel';
const readOptions = defineOptions(OWNER, {
  /**
   * How long a client that went over the limit is refused, whatever it does, ms (Cloudflare's
   * mitigation timeout, a WAF's ban).
   * @default 60000
   */
  blockMs: number(60_000, { min: 0 }),
  /**
   * Where the counter's windows start on the server's clock, ms.
   * @default 0
   */
  phaseMs: number(0, { min: 0 }),
  ...WINDOW_SPEC,
});

/** Options of {@link PenaltyBoxModel}. Latency defaults to 350 ms. */
export interface PenaltyBoxOptions extends OptionsOf<typeof readOptions> {}
type Settings = Scheduled<ReturnType<typeof readOptions>>;

interface Client {
  readonly counter: WindowCounter;
  /** Refused until then, ms. */
  blockedUntil: number;
}

/**
 * A limit with a penalty (Cloudflare's rate-limiting rules, WAF bans): requests are counted with a
 * sliding window counter, and the first one it does not admit (`floor(rate × windowMs / 1000)` a
 * window) blocks the client for `blockMs` — every request in that time is refused, with the time
 * left as its wait. Staying under the limit costs nothing; crossing it once costs the whole block.
 */
export class PenaltyBoxModel extends ServingModel<Settings> {
  readonly name = 'penalty-box';
  readonly #clients = new ScopedState<Client>(this.settings.scope, () => ({
    counter: new WindowCounter(this.settings.windowMs, this.settings.phaseMs),
    blockedUntil: -Infinity,
  }));

  constructor(options: PenaltyBoxOptions = {}) {
    super(windowSettings(OWNER, readOptions(options)));
  }

  arrive(request: ModelRequest): ModelReply {
    const { rate, windowMs, blockMs } = this.settings;
    const client = this.#clients.of(request);
    if (request.at < client.blockedUntil) {
      return this.refused(request, client.blockedUntil - request.at);
    }
    const limit = Math.floor((rate.at(request.at) * windowMs) / 1000);
    if (!client.counter.admits(request.at, limit)) {
      client.blockedUntil = request.at + blockMs;
      return this.refused(request, blockMs);
    }
    client.counter.add(request.at);
    return this.served();
  }

  capacity(at: number): number {
    return this.settings.rate.at(at);
  }
}
