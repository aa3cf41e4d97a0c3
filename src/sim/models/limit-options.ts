import { choice } from '../../option-rules.js';
import type { OptionsOf } from '../../option-spec.js';
import { RETRY_AFTER_FORMS } from './retry-after.js';
import { LIMIT_SCOPES } from './scoped-state.js';

/** The rules of {@link LimitOptions}. */
export const LIMIT_SPEC = {
  /**
   * Retry-After form on the 429.
   * @default 'seconds'
   */
  retryAfter: choice('seconds', RETRY_AFTER_FORMS),
  /**
   * One budget for the whole server, or one per client.
   * @default 'server'
   */
  scope: choice('server', LIMIT_SCOPES),
};

/** Options shared by the models that reject with 429 (fixed window, sliding log, bucket, quota). */
export interface LimitOptions extends OptionsOf<typeof LIMIT_SPEC> {}
