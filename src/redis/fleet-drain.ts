import { isRefusal, type Sample } from '../algorithms/sample.js';

/** What an outcome tells of the fleet's admission order (see `ORDER` in `lua/order.ts`). */
export interface Ordered {
  /** The request's admission number; absent when it had no lease of its own. */
  readonly q?: number;
  /** The lowest admission number still leased when it was queued; absent under a rate lease. */
  readonly m?: number;
  /** The upper bound on the scope's other requests in flight (see `Sample.outstanding`). */
  readonly o?: number;
}

/**
 * A refusal's first count, made exact for the fleet. An outcome's own `o` is
 * an upper bound with several workers (the fleet's leases as Redis last
 * counted them), so a count due once nothing is in flight would wait for its
 * due time while sending resumes at the refusal's reading. Redis numbers each
 * admission; once the lowest number still leased is above the refusal's, no
 * request admitted before the refused one is unanswered anywhere in the
 * fleet: the first acceptance learned then — every outcome queued before it
 * learned too — is judged with nothing else in flight, as a local controller
 * judges the last acceptance in a refusal's pause. Every other outcome keeps
 * its `o`. Kept with the learner's algorithms from step to step; a learner
 * that resumed another's state knows no refusal and reads every `o`.
 */
export class FleetDrain {
  /** The admission number of the refusal whose drain is awaited (`Infinity`: unnumbered, never). */
  #refused: number | undefined;

  /**
   * The `outstanding` to judge `outcome` with: 0 if it is the first to show
   * the refusal drained (`inOrder`: every outcome queued before it is learned),
   * else its own `o`.
   */
  outstanding(outcome: Ordered, inOrder: boolean): number {
    const fallback = outcome.o ?? 0;
    if (this.#refused === undefined || outcome.m === undefined || !inOrder) return fallback;
    if (!(outcome.m > this.#refused)) return fallback;
    this.#refused = undefined;
    return 0;
  }

  /** Notes a learned outcome: a refusal (judged `sample`) awaits its drain. */
  learned(outcome: Ordered, sample: Sample): void {
    if (isRefusal(sample)) this.#refused = outcome.q ?? Infinity;
  }
}

/**
 * For outcomes taken in `order` (their indices in the queue, in the order
 * learned): whether each comes after every outcome queued before it — Redis
 * read its admission order after those were queued, so only then does its
 * `m` speak for what was learned.
 */
export function queuedInOrder(order: readonly number[]): boolean[] {
  const done = new Array<boolean>(order.length).fill(false);
  let prefix = 0; // outcomes 0 … prefix − 1 are learned
  return order.map((index) => {
    const inOrder = prefix >= index;
    done[index] = true;
    while (done[prefix]) prefix++;
    return inOrder;
  });
}
