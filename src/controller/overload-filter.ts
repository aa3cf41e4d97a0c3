import type { Signal } from '../signal.js';

/** Weight of each outcome in the recent share of bare 5xx (about the last 16 outcomes). */
const FAST = 1 / 16;
/** A recent share this high (about 4 of the last 16 outcomes) is an overload, not noise. */
const SURGE = 0.2;

/**
 * Decides what a 502, 503 or 504 (`overloaded`) means for the speed of a scope,
 * before the algorithms see it. Origins fail now and then whatever the load;
 * cutting hard on every such error collapses a fast scope (at 200 requests/s
 * a 1 % error rate is two cuts a second), so a bare 5xx counts as an overload
 * only when it stands out:
 *
 * - with a `Retry-After`, the server is shedding load on purpose and says
 *   when: a refusal like a 429 (`throttled`);
 * - while the rate probes above its learned ceiling, a refusal too, unless
 *   the scope has been refused otherwise (a 429, or a 5xx with a
 *   `Retry-After`): the probe is looking for the rate at which the server
 *   starts refusing, and one that refuses with a bare 503 would otherwise let
 *   it run on;
 * - without one, an overload only when bare 5xx surge to a fifth of the
 *   recent outcomes (an origin failing 2 % of requests at random does that
 *   about once in 3,000 outcomes). Anything less is noise, passed on as a
 *   `server-error` (which holds the speed).
 */
export class OverloadFilter {
  #recent = 0;
  /** Whether the scope was ever refused with a 429 or a 5xx with a `Retry-After`: then a bare 5xx is not its refusal. */
  #refusesOtherwise = false;

  /** The signal the algorithms should see for an outcome; `probing`: the rate is probing. */
  judge(signal: Signal, probing = false): Signal {
    const bare = signal.kind === 'overloaded' && signal.retryAfterMs === undefined;
    this.#recent += ((bare ? 1 : 0) - this.#recent) * FAST;
    if (signal.kind === 'throttled' || (signal.kind === 'overloaded' && !bare)) {
      this.#refusesOtherwise = true;
    }
    if (signal.kind !== 'overloaded') return signal;
    if (!bare || (probing && !this.#refusesOtherwise && this.#recent < SURGE)) {
      return { ...signal, kind: 'throttled' };
    }
    if (this.#recent >= SURGE) return signal;
    return { ...signal, kind: 'server-error', reason: `${signal.reason} (isolated)` };
  }
}
