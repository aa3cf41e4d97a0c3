import { defineOptions, number } from '../../option-spec.js';
import { type Latency, type LatencyOptions, latencyOf, latencySpec } from './latency.js';
import type { ModelReply, ModelRequest, ServerModel } from './model.js';
import { textReply } from './reply.js';
import { ClientWindow } from './time-log.js';

/** Options of {@link PacingRampModel}. Latency defaults to 200 ms. */
export interface PacingRampOptions extends LatencyOptions {
  /**
   * Extra delay per step, ms.
   * @default 40
   */
  stepMs?: number;
  /**
   * Requests from one client per step.
   * @default 100
   */
  stepRequests?: number;
  /**
   * Largest extra delay, ms.
   * @default 3000
   */
  maxDelayMs?: number;
  /**
   * Which of the client's requests count: all it ever sent (`Infinity`, the
   * plain ramp), or those of the last `windowMs` (the decaying ramp: slowing
   * down lowers the delay again).
   * @default Infinity
   */
  windowMs?: number;
}

const OWNER = 'PacingRampModel';
const readOptions = defineOptions<PacingRampOptions>()(OWNER, {
  stepMs: number(40, { min: 0 }),
  stepRequests: number(100, { min: 1, integer: true }),
  maxDelayMs: number(3000, { min: 0 }),
  windowMs: number(Infinity, { min: 1, infinite: true }),
  ...latencySpec(200),
});

/**
 * Per-client pacing ramp (a soft-throttling form, docs/server-models.md): never an error, but the
 * time to first byte grows by `stepMs` for every `stepRequests` requests the client has sent (this
 * one included), capped at `maxDelayMs`. The n-th request gets `latency + min(maxDelayMs, floor(n /
 * stepRequests) × stepMs)`.
 */
export class PacingRampModel implements ServerModel {
  readonly name: string;
  readonly #stepMs: number;
  readonly #stepRequests: number;
  readonly #maxDelayMs: number;
  readonly #counts: ClientWindow;
  readonly #latency: Latency;

  constructor(options: PacingRampOptions = {}) {
    const settings = readOptions(options);
    this.#stepMs = settings.stepMs;
    this.#stepRequests = settings.stepRequests;
    this.#maxDelayMs = settings.maxDelayMs;
    this.name = settings.windowMs === Infinity ? 'ramp' : 'decaying-ramp';
    this.#counts = new ClientWindow(settings.windowMs);
    this.#latency = latencyOf(settings);
  }

  arrive(request: ModelRequest): ModelReply {
    const count = this.#counts.record(request.client, request.at);
    const steps = Math.floor(count / this.#stepRequests);
    const delayMs = Math.min(this.#maxDelayMs, steps * this.#stepMs);
    return textReply(200, { ttfbMs: this.#latency.sample() + delayMs });
  }

  /** No hard capacity: the ramp slows clients down instead of rejecting them. */
  capacity(): undefined {
    return undefined;
  }
}
