import { RetryAfterTooLongError, ScopePausedError } from '../errors.js';

/** URLs of one paused scope that a crawl set aside. */
export interface PausedScope {
  /** The scope, e.g. `host:api.example.com`. */
  scope: string;
  /** When its pause ends (ISO 8601), as far as known. */
  until: string;
  /** Why it is paused, e.g. `429 with Retry-After 86400 s, capped at 300 s (maxPauseMs)`. */
  reason: string;
  /** URLs set aside. */
  urls: number;
  /** The first few of them. */
  examples: string[];
}

/** Example URLs kept per scope. */
const EXAMPLES = 3;

/**
 * The URLs a crawl set aside because their scope is paused for longer than a
 * request waits (a Retry-After of hours, a quota spent for the day, a breaker
 * open for long): not fetched, not written — so `--resume` fetches them — and
 * listed by scope in the summary, with until when and why.
 */
export class SetAside {
  readonly #scopes = new Map<string, PausedScope>();
  /** Scopes known only from a response's own Retry-After, not yet from the scope's pause. */
  readonly #heardOnly = new Set<string>();
  #count = 0;

  /** URLs set aside so far. */
  get count(): number {
    return this.#count;
  }

  /**
   * Sets `url` aside if `error` says its scope is paused too long; returns
   * whether it did (any other error is the URL's failure).
   */
  add(url: string, error: unknown, now: number): boolean {
    const paused = pausedScope(url, error, now);
    if (paused === undefined) return false;
    this.#count++;
    const fromScope = error instanceof ScopePausedError;
    const known = this.#scopes.get(paused.scope);
    if (known === undefined) {
      this.#scopes.set(paused.scope, { ...paused, urls: 1, examples: [url] });
      if (!fromScope) this.#heardOnly.add(paused.scope);
      return true;
    }
    known.urls++;
    if (known.examples.length < EXAMPLES) known.examples.push(url);
    // The scope's own pause (capped, with its cause) says more than one response's Retry-After.
    const better = fromScope && this.#heardOnly.delete(paused.scope);
    if (better || (fromScope && paused.until > known.until)) {
      Object.assign(known, { until: paused.until, reason: paused.reason });
    }
    return true;
  }

  /** The scopes, most URLs first. */
  scopes(): PausedScope[] {
    return [...this.#scopes.values()].sort((a, b) => b.urls - a.urls);
  }
}

function pausedScope(
  url: string,
  error: unknown,
  now: number,
): Pick<PausedScope, 'scope' | 'until' | 'reason'> | undefined {
  if (error instanceof ScopePausedError) {
    return { scope: error.scope, until: new Date(error.until).toISOString(), reason: error.reason };
  }
  if (error instanceof RetryAfterTooLongError) {
    return {
      scope: `host:${new URL(url).host}`,
      until: new Date(now + error.retryAfterMs).toISOString(),
      reason: `Retry-After ${Math.round(error.retryAfterMs / 1000)} s, longer than a request waits`,
    };
  }
  return undefined;
}
