import { choice, defineOptions, number } from '../../option-spec.js';
import { type Latency, type LatencyOptions, latencyOf, latencySpec } from './latency.js';
import { LIMIT_SPEC, type LimitOptions } from './limit-options.js';
import type { ModelReply, ModelRequest, ServerModel } from './model.js';
import { textReply } from './reply.js';
import { type RetryAfterForm, retryAfterHeaders } from './retry-after.js';
import { ScopedState } from './scoped-state.js';

/** Which rate-limit header families a {@link QuotaModel} publishes. */
export type QuotaHeaderFamily = 'both' | 'x-ratelimit' | 'ietf';

/** How `X-RateLimit-Reset` is written: seconds from now, or epoch seconds (GitHub). */
export type ResetForm = 'delta' | 'epoch';

/** Options of {@link QuotaModel}. Latency defaults to 200 ms. */
export interface QuotaOptions extends LimitOptions, LatencyOptions {
  /**
   * Requests allowed per window.
   * @default 60
   */
  limit?: number;
  /**
   * Window length, ms. Windows are aligned to model time 0.
   * @default 60000
   */
  windowMs?: number;
  /**
   * Header families sent: `X-RateLimit-Limit/Remaining/Reset`, the IETF
   * `RateLimit` / `RateLimit-Policy` structured fields, or both.
   * @default 'both'
   */
  headers?: QuotaHeaderFamily;
  /**
   * Form of `X-RateLimit-Reset`.
   * @default 'delta'
   */
  resetForm?: ResetForm;
}

const OWNER = 'QuotaModel';
const readOptions = defineOptions<QuotaOptions>()(OWNER, {
  limit: number(60, { min: 1, integer: true }),
  windowMs: number(60_000, { min: 1 }),
  headers: choice('both', ['both', 'x-ratelimit', 'ietf']),
  resetForm: choice('delta', ['delta', 'epoch']),
  ...LIMIT_SPEC,
  ...latencySpec(200),
});
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
export class QuotaModel implements ServerModel {
  readonly name = 'quota';
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #family: QuotaHeaderFamily;
  readonly #resetForm: ResetForm;
  readonly #retryAfter: RetryAfterForm;
  readonly #usage: ScopedState<Usage>;
  readonly #latency: Latency;

  constructor(options: QuotaOptions = {}) {
    const settings = readOptions(options);
    this.#limit = settings.limit;
    this.#windowMs = settings.windowMs;
    this.#family = settings.headers;
    this.#resetForm = settings.resetForm;
    this.#retryAfter = settings.retryAfter;
    this.#usage = new ScopedState(settings.scope, () => ({ window: -1, used: 0 }));
    this.#latency = latencyOf(settings);
  }

  arrive(request: ModelRequest): ModelReply {
    const usage = this.#usage.of(request);
    const window = Math.floor(request.at / this.#windowMs);
    if (usage.window !== window) {
      usage.window = window;
      usage.used = 0;
    }
    const resetMs = (window + 1) * this.#windowMs - request.at;
    if (usage.used >= this.#limit) {
      const headers = {
        ...this.#quotaHeaders(0, resetMs, request.wallAt),
        ...retryAfterHeaders(this.#retryAfter, resetMs, request.wallAt),
      };
      return textReply(429, { headers });
    }
    usage.used++;
    const headers = this.#quotaHeaders(this.#limit - usage.used, resetMs, request.wallAt);
    return textReply(200, { headers, ttfbMs: this.#latency.sample() });
  }

  capacity(): number {
    return (this.#limit * 1000) / this.#windowMs;
  }

  #quotaHeaders(remaining: number, resetMs: number, wallAt: number): Record<string, string> {
    const resetSeconds = Math.ceil(resetMs / 1000);
    const headers: Record<string, string> = {};
    if (this.#family !== 'ietf') {
      headers['x-ratelimit-limit'] = String(this.#limit);
      headers['x-ratelimit-remaining'] = String(remaining);
      headers['x-ratelimit-reset'] = String(
        this.#resetForm === 'epoch' ? Math.ceil((wallAt + resetMs) / 1000) : resetSeconds,
      );
    }
    if (this.#family !== 'x-ratelimit') {
      const windowSeconds = Math.ceil(this.#windowMs / 1000);
      headers['ratelimit-policy'] = `${POLICY};q=${this.#limit};w=${windowSeconds}`;
      headers.ratelimit = `${POLICY};r=${remaining};t=${resetSeconds}`;
    }
    return headers;
  }
}
