import type { Signal } from '../signal.js';
import { BareErrorCheck } from './bare-error-check.js';

/** Weight of each outcome in the recent share of bare 5xx (about the last 16 outcomes). */
const FAST = 1 / 16;
/** A recent share this high (about 4 of the last 16 outcomes) is an overload, not noise. */
const SURGE = 0.2;

/** How the rate stood when a request was sent: unpaced (a slow start), held at a learned rate, or probing above it. */
export type RatePhase = 'unpaced' | 'held' | 'probing';

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
 * - on a scope refused no other way, when bare 5xx at a held rate come more
 *   often than the origin's noise would send them (a few percent, or twice
 *   the noise learned), one of them is taken as a refusal, to see whether a
 *   slower rate stops them (a server that limits with bare 503s, as nginx's
 *   `limit_req` does, refusing a few percent of a rate held just above its
 *   capacity); if it does not, that share is the origin's noise
 *   ({@link BareErrorCheck});
 * - without one, an overload only when bare 5xx surge to a fifth of the
 *   recent outcomes (an origin failing 2 % of requests at random does that
 *   about once in 3,000 outcomes). Anything less is noise, passed on as a
 *   `server-error` (which holds the speed).
 */
export class OverloadFilter {
  #recent = 0;
  /** Whether the scope was ever refused with a 429 or a 5xx with a `Retry-After`: then a bare 5xx is not its refusal. */
  #refusesOtherwise = false;
  readonly #check = new BareErrorCheck();

  /** The signal the algorithms should see for an outcome sent in the rate's `phase`. */
  judge(signal: Signal, phase: RatePhase = 'held'): Signal {
    const bare = signal.kind === 'overloaded' && signal.retryAfterMs === undefined;
    this.#recent += ((bare ? 1 : 0) - this.#recent) * FAST;
    if (signal.kind === 'throttled' || (signal.kind === 'overloaded' && !bare)) {
      this.#refusesOtherwise = true;
    }
    const tried = !this.#refusesOtherwise && this.#check.observe(bare, phase === 'held');
    const judged = this.#judged(signal, bare, phase, tried);
    if (judged.kind === 'overloaded') this.#check.onSurge();
    return judged;
  }

  #judged(signal: Signal, bare: boolean, phase: RatePhase, tried: boolean): Signal {
    if (signal.kind !== 'overloaded') return signal;
    if (!bare || (phase === 'probing' && !this.#refusesOtherwise && this.#recent < SURGE)) {
      return { ...signal, kind: 'throttled' };
    }
    if (this.#recent >= SURGE) return signal;
    if (tried) return { ...signal, kind: 'throttled', reason: `${signal.reason} (sustained)` };
    return { ...signal, kind: 'server-error', reason: `${signal.reason} (isolated)` };
  }
}
