import { choiceOption } from '../../options.js';
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

/** Option names of {@link LimitOptions}, for `rejectUnknownOptions`. */
export const LIMIT_OPTION_NAMES = ['retryAfter', 'scope'] as const;

/** Validated {@link LimitOptions}. */
export interface Limits {
  retryAfter: RetryAfterForm;
  scope: LimitScope;
}

/** Validates {@link LimitOptions}, applying the defaults. */
export function readLimitOptions(owner: string, options: LimitOptions): Limits {
  return {
    retryAfter: choiceOption(owner, 'retryAfter', options.retryAfter, 'seconds', RETRY_AFTER_FORMS),
    scope: choiceOption(owner, 'scope', options.scope, 'server', LIMIT_SCOPES),
  };
}
