import { describe, expect, it } from 'vitest';
import { grantsOf, inflightWhenSent } from '../../src/redis/acquire-grants.js';
import { FleetView } from '../../src/redis/fleet-view.js';

/** An acquire reply (see `acquireScript`) at Redis ms `now`: leases in flight with the new ones, rate, pause, the new leases' waits in µs. */
function reply(now: number, inflight: number, rate: number, pauseUntil: number, waitsUs: number[]) {
  return [
    0,
    waitsUs[0] ?? 0,
    now,
    1,
    3,
    8,
    inflight,
    40,
    String(rate),
    pauseUntil,
    '',
    waitsUs,
    0,
    0,
  ];
}

describe('the fleet in flight a lease is granted under', () => {
  it('counts the leases held before it, itself included, when it is sent at once', () => {
    const grants = grantsOf(reply(10_000, 6, 30, 0, [0, 0]), 1, 'w', new FleetView(40, 30), 0);
    expect(grants.map((g) => g.inflight)).toEqual([5, 6]);
  });

  it('leaves out the sends the schedule booked ahead of a lease booked a second on', () => {
    // As sending resumes after a pause: 30 leases booked over the next second at 30/s, then this one.
    const waits = [1_000_000];
    const grants = grantsOf(reply(10_000, 31, 30, 0, waits), 1, 'w', new FleetView(40, 30), 0);
    expect(grants[0]?.inflight).toBe(1);
  });

  it('books from the end of a pause: nothing was booked in it', () => {
    // Paused until 10 500 ms; 9 leases booked over its first 300 ms after, this one 300 ms on.
    const waits = [800_000];
    const grants = grantsOf(reply(10_000, 10, 30, 10_500, waits), 1, 'w', new FleetView(40, 30), 0);
    expect(grants[0]?.inflight).toBe(1);
    expect(inflightWhenSent(12, 300, 30)).toBe(4);
  });

  it('an unpaced scope books nothing ahead: every lease held is in flight', () => {
    expect(inflightWhenSent(7, 1000, Number.POSITIVE_INFINITY)).toBe(8);
  });
});
