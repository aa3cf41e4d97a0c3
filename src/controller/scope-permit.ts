import type { Pass } from '../enforce/breaker-gate.js';
import type { Signal } from '../signal.js';
import type { OutcomeDetails, Permit } from './permit.js';

/** What a {@link ScopePermit} reports back to. */
export interface PermitOwner {
  /** The request ended with an outcome. */
  complete(permit: ScopePermit, signal: Signal, details: OutcomeDetails | undefined): void;
  /** The request ended without one. */
  release(permit: ScopePermit): void;
}

/** The permit a scope controller hands out: reports once, then ignores repeats. */
export class ScopePermit implements Permit {
  readonly #owner: PermitOwner;
  /** Whether this request is the breaker's half-open probe. */
  readonly pass: Pass;
  #sentAt: number;
  /** Requests in flight in the scope when this one was sent, itself included. */
  readonly inflightAtSend: number;
  #done = false;

  constructor(owner: PermitOwner, pass: Pass, sentAt: number, inflightAtSend: number) {
    this.#owner = owner;
    this.pass = pass;
    this.#sentAt = sentAt;
    this.inflightAtSend = inflightAtSend;
  }

  /** When the request was sent: its admission, or the moment all its scopes admitted it. */
  get sentAt(): number {
    return this.#sentAt;
  }

  /** Moves the send time to `at` (a request admitted by several scopes goes when the last admits it). */
  restamp(at: number): void {
    this.#sentAt = at;
  }

  report(signal: Signal, details?: OutcomeDetails): void {
    if (this.#done) return;
    this.#done = true;
    this.#owner.complete(this, signal, details);
  }

  release(): void {
    if (this.#done) return;
    this.#done = true;
    this.#owner.release(this);
  }
}
