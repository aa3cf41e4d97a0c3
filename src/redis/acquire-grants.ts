import type { FleetGrant } from './fleet-grant.js';
import type { FleetView } from './fleet-view.js';

/**
 * The grants an acquire reply carries (see `acquireScript`): one per lease it
 * took, numbered from `first` after `workerId#`, each with the epoch and the
 * fleet's leases in flight at admission and its send time (local ms, 0: at
 * once). A send time is Redis's (the reply's clock plus the lease's wait) on
 * this worker's clock by `view`'s offset — not the wait counted from when the
 * reply is read, which would add the reply's way back and this event loop's
 * delay to every send, a different lateness for each reply, so sends the
 * shared schedule spaced evenly would reach the server bunched. Never earlier
 * than Redis booked it, nor later than the wait counted from `readAt`.
 */
export function grantsOf(
  reply: readonly unknown[],
  first: number,
  workerId: string,
  view: FleetView,
  readAt: number,
): FleetGrant[] {
  const waits = reply[11] as readonly unknown[];
  const before = Number(reply[6]) - waits.length;
  // Redis's clock in the reply is whole ms, rounded down: the booked time is at most 1 ms later.
  const redisNow = Number(reply[2]) + 1;
  return waits.map((wait, i) => {
    const waitMs = Number(wait) / 1000;
    return {
      leaseId: `${workerId}#${first + i}`,
      epoch: Number(reply[4]),
      inflight: before + i + 1,
      sendAt: waitMs > 0 ? Math.min(readAt + waitMs, view.latestLocal(redisNow + waitMs)) : 0,
    };
  });
}
