import { defineOptions, number } from '../../option-spec.js';
import { type LatencyOptions, latencySpec } from './latency.js';
import type { ModelReply, ModelRequest } from './model.js';
import { ServingModel } from './serving-model.js';
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
export class PacingRampModel extends ServingModel<ReturnType<typeof readOptions>> {
  readonly name = this.settings.windowMs === Infinity ? 'ramp' : 'decaying-ramp';
  readonly #counts = new ClientWindow(this.settings.windowMs);

  constructor(options: PacingRampOptions = {}) {
    super(readOptions(options));
  }

  arrive(request: ModelRequest): ModelReply {
    const { stepMs, stepRequests, maxDelayMs } = this.settings;
    const count = this.#counts.record(request.client, request.at);
    return this.served(Math.min(maxDelayMs, Math.floor(count / stepRequests) * stepMs));
  }

  /** No hard capacity: the ramp slows clients down instead of rejecting them. */
  capacity(): undefined {
    return undefined;
  }
}
