import { number } from '../../option-rules.js';
import { defineOptions, type OptionsOf } from '../../option-spec.js';
import { latencySpec } from './latency.js';
import type { ModelReply, ModelRequest } from './model.js';
import { ServingModel } from './serving-model.js';
import { ClientWindow } from './time-log.js';

const OWNER = 'PacingRampModel';
const readOptions = defineOptions(OWNER, {
  /**
   * Extra delay per step, ms.
   * @default 40
   */
  stepMs: number(40, { min: 0 }),
  /**
   * Requests from one client per step.
   * @default 100
   */
  stepRequests: number(100, { min: 1, integer: true }),
  /**
   * Largest extra delay, ms.
   * @default 3000
   */
  maxDelayMs: number(3000, { min: 0 }),
  /**
   * Which of the client's requests count: all it ever sent (`Infinity`, the
   * plain ramp), or those of the last `windowMs` (the decaying ramp: slowing
   * down lowers the delay again).
   * @default Infinity
   */
  windowMs: number(Infinity, { min: 1, infinite: true }),
  ...latencySpec(200),
});

/** Options of {@link PacingRampModel}. Latency defaults to 200 ms. */
export interface PacingRampOptions extends OptionsOf<typeof readOptions> {}

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
