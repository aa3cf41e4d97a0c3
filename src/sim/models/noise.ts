import type { Random } from '../../random.js';
import type { ModelReply, ModelRequest, ServerModel } from './model.js';
import { textReply } from './reply.js';
import { WrappingModel } from './wrapping-model.js';

/** Statuses an origin fails with for reasons that have nothing to do with load. */
const NOISE_STATUSES = [500, 502, 503, 504] as const;

/** Options of {@link NoiseModel}. */
export interface NoiseOptions {
  /** Chance that a request fails, whatever the load, in [0, 1). */
  readonly probability: number;
  /** Time to the error, ms. */
  readonly latencyMs: number;
  /** Source of the chance and of the status. */
  readonly random: Random;
}

/**
 * Unrelated server errors: with a fixed probability, a request is answered by
 * a 500, 502, 503 or 504 (no Retry-After) before it reaches the wrapped model,
 * so it neither uses nor reflects the limit. {@link NoiseModel.isNoise} tells a
 * reply of its own from the wrapped model's.
 */
export class NoiseModel extends WrappingModel {
  readonly #options: NoiseOptions;
  readonly #noisy = new WeakSet<ModelReply>();

  constructor(inner: ServerModel, options: NoiseOptions) {
    super(inner, `${inner.name}+noise`);
    this.#options = options;
  }

  arrive(request: ModelRequest): ModelReply {
    const { random, probability, latencyMs } = this.#options;
    if (random.next() >= probability) return this.inner.arrive(request);
    const status = NOISE_STATUSES[Math.floor(random.next() * NOISE_STATUSES.length)] ?? 500;
    const reply = textReply(status, { ttfbMs: latencyMs });
    this.#noisy.add(reply);
    return reply;
  }

  /** Whether `reply` is one of this layer's errors rather than the wrapped model's answer. */
  isNoise(reply: ModelReply): boolean {
    return this.#noisy.has(reply);
  }
}
