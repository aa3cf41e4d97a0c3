import { type ClientRateOptions, ClientRateTrigger } from './client-rate.js';
import type { ModelRequest } from './model.js';
import { ServingModel, type ServingSettings } from './serving-model.js';

/**
 * A {@link ServingModel} that penalises a client's requests above its free
 * rate (a soft-throttling form: byte-drip, tarpit, escalation): `over` tells
 * which requests are, and the model's capacity is that free rate.
 */
export abstract class ClientRateModel<
  S extends ServingSettings & Required<ClientRateOptions>,
> extends ServingModel<S> {
  readonly #trigger = new ClientRateTrigger(this.settings);

  /** Records the request; true when it is over its client's free rate. */
  protected over(request: ModelRequest): boolean {
    return this.#trigger.over(request);
  }

  /** The free rate per client, requests/s (`undefined` when 0: every request is penalised). */
  capacity(): number | undefined {
    return this.#trigger.capacity();
  }
}
