/** What a rate lease lets this worker spend locally. */
export interface Share {
  /** Slots of the fleet's window. */
  readonly slots: number;
  /** Requests/s; `Infinity` when the scope is unpaced. */
  readonly rate: number;
  /** Local ms the share is sure to hold until, unless renewed. */
  readonly until: number;
}

/** Admission by the fleet: a lease (or none, when running alone), and what it was granted under. */
export interface FleetGrant {
  /** The lease id; '' when granted alone (Redis out of reach) and not adopted since, or under a share. */
  leaseId: string;
  /** Granted under this worker's rate lease (see `RateLease`): no lease of its own. */
  readonly share?: true;
  /** The congestion epoch at admission. */
  readonly epoch: number;
  /** Leases held fleet-wide at admission, this one included. */
  readonly inflight: number;
  /** The reserved send time, local ms (0: at once). */
  readonly sendAt: number;
}

/**
 * The requests one scope admitted alone while Redis was out of reach and that
 * were sent and still run. Back in the fleet they get leases in one call, so
 * the fleet's window counts them; nothing else of that time is replayed. (One
 * granted alone but not sent yet when the fleet is back goes to the fleet's
 * queue instead: see `FleetRegistry.admit`.)
 */
export class AloneGrants {
  readonly #running = new Set<FleetGrant>();
  #adopting: Promise<void> | undefined;

  /** A grant made without Redis. */
  grant(): FleetGrant {
    return { leaseId: '', epoch: 0, inflight: 0, sendAt: 0 };
  }

  /** The request of an alone `grant` was sent. */
  sent(grant: FleetGrant): void {
    if (grant.leaseId === '' && !grant.share) this.#running.add(grant);
  }

  /** The request of `grant` ended; returns whether it was running alone. */
  end(grant: FleetGrant): boolean {
    return this.#running.delete(grant);
  }

  /** The adoption under way, if any (admission through Redis waits for it). */
  get adopting(): Promise<void> | undefined {
    return this.#adopting;
  }

  /**
   * Leases the running grants: `lease` stores the ids given (one call);
   * `leased` takes each grant on, `ended` frees the lease of one that ended meanwhile.
   */
  adopt(
    newId: () => string,
    lease: (ids: string[]) => Promise<unknown>,
    leased: (grant: FleetGrant) => void,
    ended: (grant: FleetGrant) => void,
  ): void {
    if (this.#running.size === 0 || this.#adopting) return;
    const grants = [...this.#running];
    const ids = grants.map(newId);
    this.#adopting = lease(ids)
      .then(() => {
        grants.forEach((grant, i) => {
          grant.leaseId = ids[i] as string;
          leased(grant);
          if (!this.#running.delete(grant)) ended(grant);
        });
      })
      .catch(() => undefined) // still out of reach: they stay unleased
      .finally(() => {
        this.#adopting = undefined;
      });
  }
}
