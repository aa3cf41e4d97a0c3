import {
  type Backoff,
  type BackoffOptions,
  exponentialWindow,
  resolveBackoffOptions,
} from './backoff.js';

/**
 * Plain exponential backoff without jitter: exactly the window, `min(cap,
 * base × factorⁿ)`. Clients that failed together retry together; kept as the
 * naive baseline that comparisons measure the jittered strategies against.
 */
export function noJitter(options: BackoffOptions = {}): Backoff {
  const resolved = resolveBackoffOptions('noJitter', options);
  return {
    name: 'no-jitter',
    delayMs: (attempt) => exponentialWindow(resolved, attempt),
  };
}
