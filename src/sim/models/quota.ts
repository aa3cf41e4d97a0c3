import { choice, number } from '../../option-rules.js';
import { defineOptions, type OptionsOf } from '../../option-spec.js';
import { latencySpec } from './latency.js';
import { LIMIT_SPEC } from './limit-options.js';
import type { ModelReply, ModelRequest } from './model.js';
import { ScopedState } from './scoped-state.js';
import { ServingModel } from './serving-model.js';

/** Which rate-limit header families a {@link QuotaModel} publishes. */
export type QuotaHeaderFamily = 'both' | 'x-ratelimit' | 'ietf';

/** How `X-RateLimit-Reset` is written: seconds from now, or epoch seconds (GitHub). */
export type ResetForm = 'delta' | 'epoch';

const OWNER = 'QuotaModel';
const readOptions = defineOptions(OWNER, {
  /**
   * Requests allowed per window.
   * @default 60
   */
  limit: number(60, { min: 1, integer: true }),
  /**
   * Window length, ms. Windows are aligned to model time 0.
   * @default 60000
   */
  windowMs: number(60_000, { min: 1 }),
  /**
   * Header families sent: `X-RateLimit-Limit/Remaining/Reset`, the IETF
   * `RateLimit` / `RateLimit-Policy` structured fields, or both.
   * @default 'both'
   */
  headers: choice<QuotaHeaderFamily>('both', ['both', 'x-ratelimit', 'ietf']),
  /**
   * Form of `X-RateLimit-Reset`.
   * @default 'delta'
   */
  resetForm: choice<ResetForm>('delta', ['delta', 'epoch']),
  ...LIMIT_SPEC,
  ...latencySpec(200),
});

/** Options of {@link QuotaModel}. Latency defaults to 200 ms. */
export interface QuotaOptions extends OptionsOf<typeof readOptions> {}

const POLICY = '"default"';

interface Usage {
  window: number;
  used: number;
}

/**
 * A published quota: `limit` requests per aligned window, announced on every
 * response (limit, remaining after this request, seconds to reset); 429 with a
 * Retry-After to the reset only once the quota is spent.
 */
export class QuotaModel extends ServingModel<ReturnType<typeof readOptions>> {
  readonly name = 'quota';
  readonly #usage = new ScopedState<Usage>(this.settings.scope, () => ({ window: -1, used: 0 }));

  constructor(options: QuotaOptions = {}) {
    super(readOptions(options));
  }

  arrive(request: ModelRequest): ModelReply {
    const { limit, windowMs } = this.settings;
    const usage = this.#usage.of(request);
    const window = Math.floor(request.at / windowMs);
    if (usage.window !== window) {
      usage.window = window;
      usage.used = 0;
    }
    const resetMs = (window + 1) * windowMs - request.at;
    if (usage.used >= limit) {
      return this.refused(request, resetMs, 429, this.#quotaHeaders(0, resetMs, request.wallAt));
    }
    usage.used++;
    return this.served(0, this.#quotaHeaders(limit - usage.used, resetMs, request.wallAt));
  }

  capacity(): number {
    return (this.settings.limit * 1000) / this.settings.windowMs;
  }

  #quotaHeaders(remaining: number, resetMs: number, wallAt: number): Record<string, string> {
    const { limit, windowMs, headers: family, resetForm } = this.settings;
    const resetSeconds = Math.ceil(resetMs / 1000);
    const headers: Record<string, string> = {};
    if (family !== 'ietf') {
      headers['x-ratelimit-limit'] = String(limit);
      headers['x-ratelimit-remaining'] = String(remaining);
      headers['x-ratelimit-reset'] = String(
        resetForm === 'epoch' ? Math.ceil((wallAt + resetMs) / 1000) : resetSeconds,
      );
    }
    if (family !== 'x-ratelimit') {
      const windowSeconds = Math.ceil(windowMs / 1000);
      headers['ratelimit-policy'] = `${POLICY};q=${limit};w=${windowSeconds}`;
      headers.ratelimit = `${POLICY};r=${remaining};t=${resetSeconds}`;
    }
    return headers;
  }
}
