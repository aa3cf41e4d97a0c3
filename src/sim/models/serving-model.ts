import type { Random } from '../../random.js';
import { type Latency, latencyOf } from './latency.js';
import type { ModelReply, ModelRequest, ServerModel } from './model.js';
import { textReply } from './reply.js';
import { type RetryAfterForm, retryAfterHeaders } from './retry-after.js';

/** The checked options every {@link ServingModel} has: its latency, and the Retry-After form of its refusals. */
export interface ServingSettings {
  latencyMs: number;
  jitterMs: number;
  random: Random;
  /** Absent: refusals carry no Retry-After. */
  retryAfter?: RetryAfterForm;
}

/**
 * What the built-in server models share: their checked settings, the latency of
 * a served request, and the two usual answers — served after that latency, or
 * refused at once with the wait stated in the model's Retry-After form. A model
 * decides which in `arrive`; state it derives from its settings it declares as
 * fields (`readonly #log = new ClientWindow(this.settings.windowMs)`).
 */
export abstract class ServingModel<S extends ServingSettings> implements ServerModel {
  abstract readonly name: string;
  /** The model's checked options. */
  protected readonly settings: S;
  /** The latency of a served request. */
  protected readonly latency: Latency;

  /** @param settings The options as the model's reader checked them. */
  protected constructor(settings: S) {
    this.settings = settings;
    this.latency = latencyOf(settings);
  }

  abstract arrive(request: ModelRequest): ModelReply;

  abstract capacity(at: number): number | undefined;

  /** A 200 after the latency plus `extraMs`. */
  protected served(extraMs = 0, headers: Record<string, string> = {}): ModelReply {
    return textReply(200, { headers, ttfbMs: this.latency.sample() + extraMs });
  }

  /** A refusal at once with `status`, stating a wait of `waitMs` in the model's Retry-After form. */
  protected refused(
    request: ModelRequest,
    waitMs: number,
    status = 429,
    headers: Record<string, string> = {},
  ): ModelReply {
    const form = this.settings.retryAfter ?? 'none';
    const retryAfter = retryAfterHeaders(form, waitMs, request.wallAt);
    return textReply(status, { headers: { ...headers, ...retryAfter } });
  }
}
