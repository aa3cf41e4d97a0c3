import type { Clock } from '../clock.js';
import type { OutcomeDetails, Permit } from '../controller/permit.js';
import type { Signal } from '../signal.js';
import type { FleetGrant } from './fleet-grant.js';
import type { FleetScope } from './fleet-scope.js';

/** A request admitted by the fleet and by the local controllers: reports to both, once. */
export class FleetPermit implements Permit {
  readonly #local: Permit;
  readonly #grants: readonly (readonly [FleetScope, FleetGrant])[];
  readonly #clock: Clock;
  #done = false;

  constructor(local: Permit, grants: readonly (readonly [FleetScope, FleetGrant])[], clock: Clock) {
    this.#local = local;
    this.#grants = grants;
    this.#clock = clock;
  }

  get sentAt(): number {
    return this.#local.sentAt;
  }

  report(signal: Signal, details?: OutcomeDetails): void {
    if (this.#done) return;
    this.#done = true;
    this.#local.report(signal, details);
    const at = this.#clock.now();
    for (const [scope, grant] of this.#grants) {
      scope.report(grant, { sentAt: this.#local.sentAt, at, inflight: grant.inflight, signal });
    }
  }

  release(): void {
    if (this.#done) return;
    this.#done = true;
    this.#local.release();
    for (const [scope, grant] of this.#grants) scope.release(grant);
  }
}
