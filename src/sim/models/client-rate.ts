import { number } from '../../option-rules.js';
import type { OptionsOf } from '../../option-spec.js';
import type { ModelRequest } from './model.js';
import { ClientWindow } from './time-log.js';

/** The rules of {@link ClientRateOptions}. */
export const CLIENT_RATE_SPEC = {
  /**
   * Requests/s each client gets without penalty, measured over `windowMs`;
   * `0` penalises every request.
   * @default 5
   */
  rate: number(5, { min: 0 }),
  /**
   * Span over which a client's rate is measured, ms.
   * @default 1000
   */
  windowMs: number(1000, { min: 1 }),
};

/** When a soft-throttling penalty applies: to a client's requests above a rate. */
export interface ClientRateOptions extends OptionsOf<typeof CLIENT_RATE_SPEC> {}

/**
 * Decides, per request, whether its client is over its free rate: more than
 * `rate × windowMs / 1000` requests (this one included) in the last `windowMs`.
 */
export class ClientRateTrigger {
  /** The free rate per client, requests/s. */
  readonly rate: number;
  /** The span over which the rate is measured, ms. */
  readonly windowMs: number;
  readonly #allowed: number;
  readonly #window: ClientWindow;

  /** @param settings The checked {@link ClientRateOptions}. */
  constructor(settings: Required<ClientRateOptions>) {
    this.rate = settings.rate;
    this.windowMs = settings.windowMs;
    this.#allowed = Math.floor((this.rate * this.windowMs) / 1000);
    this.#window = new ClientWindow(this.windowMs);
  }

  /** The free rate per client as a model's capacity, requests/s (`undefined` when 0). */
  capacity(): number | undefined {
    return this.rate > 0 ? this.rate : undefined;
  }

  /** Records the request; true when it is over its client's free rate. */
  over(request: ModelRequest): boolean {
    return this.#window.record(request.client, request.at) > this.#allowed;
  }
}
