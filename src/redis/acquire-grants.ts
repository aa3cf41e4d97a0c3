import type { FleetGrant } from './fleet-grant.js';

/**
 * The grants an acquire reply carries (see `acquireScript`): one per lease it
 * took, numbered from `first` after `workerId#`, each with the epoch and the
 * fleet's leases in flight at admission and its send time, ms from when the
 * reply is read (never earlier than Redis booked it).
 */
export function grantsOf(reply: readonly unknown[], first: number, workerId: string): FleetGrant[] {
  const waits = reply[11] as readonly unknown[];
  const before = Number(reply[6]) - waits.length;
  return waits.map((wait, i) => ({
    leaseId: `${workerId}#${first + i}`,
    epoch: Number(reply[4]),
    inflight: before + i + 1,
    waitMs: Number(wait) / 1000,
  }));
}
