import { choice } from '../../option-spec.js';
import { RETRY_AFTER_FORMS, type RetryAfterForm } from './retry-after.js';
import { LIMIT_SCOPES, type LimitScope } from './scoped-state.js';

/** Options shared by the models that reject with 429 (fixed window, sliding log, bucket, quota). */
export interface LimitOptions {
  /**
   * Retry-After form on the 429.
   * @default 'seconds'
   */
  retryAfter?: RetryAfterForm;
  /**
   * One budget for the whole server, or one per client.
   * @default 'server'
   */
  scope?: LimitScope;
}

/** The rules of {@link LimitOptions}. */
export const LIMIT_SPEC = {
  retryAfter: choice('seconds', RETRY_AFTER_FORMS),
  scope: choice('server', LIMIT_SCOPES),
};
