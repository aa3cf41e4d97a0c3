import type { FleetGrant } from './fleet-grant.js';
import { type FleetView, rateOf } from './fleet-view.js';

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
  const rate = rateOf(reply[8]);
  // The schedule resumes when a pause ends: nothing was booked before that.
  const pausedMs = Math.max(0, Number(reply[9]) - Number(reply[2]));
  return waits.map((wait, i) => {
    const waitMs = Number(wait) / 1000;
    return {
      leaseId: `${workerId}#${first + i}`,
      epoch: Number(reply[4]),
      inflight: inflightWhenSent(before + i, waitMs - pausedMs, rate),
      sendAt: waitMs > 0 ? Math.min(readAt + waitMs, view.latestLocal(redisNow + waitMs)) : 0,
    };
  });
}

/**
 * The fleet's requests in flight as a lease booked `bookedMs` into the shared
 * schedule (from now, or from the end of a pause) on a scope paced at `rate`
 * (requests/s) is sent, itself included, from the `leased` leases held before
 * it. Those count the sends booked ahead of it, about `rate` × `bookedMs`,
 * which are not in flight yet; the ones that are will mostly be answered by
 * then, while about as many again go out in the round trip before it: on a
 * paced scope what is in flight now is what will be. Counted whole, a send
 * booked a second ahead as sending resumed after a pause read the thirty
 * booked before it as in flight, a refusal of the rate among them was read as
 * one of a concurrency cap (see `ScopeFeedback`), and the rate was not cut.
 */
export function inflightWhenSent(leased: number, bookedMs: number, rate: number): number {
  const booked = Number.isFinite(rate) && bookedMs > 0 ? Math.floor((rate * bookedMs) / 1000) : 0;
  return Math.max(0, leased - booked) + 1;
}
