import { defineOptions } from '../option-spec.js';
import { BACKOFF_SPEC, type Backoff, type BackoffOptions, exponentialWindow } from './backoff.js';

const readOptions = defineOptions<BackoffOptions>()('noJitter', BACKOFF_SPEC);

/**
 * Plain exponential backoff without jitter: exactly the window, `min(cap,
 * base × factorⁿ)`. Clients that failed together retry together; kept as the
 * naive baseline that comparisons measure the jittered strategies against.
 */
export function noJitter(options: BackoffOptions = {}): Backoff {
  const resolved = readOptions(options);
  return {
    name: 'no-jitter',
    delayMs: (attempt) => exponentialWindow(resolved, attempt),
  };
}
