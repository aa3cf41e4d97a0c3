import { describe, expect, it } from 'vitest';
import { BookedSends } from '../../src/redis/booked-sends.js';
import { VirtualClock } from '../../src/virtual-clock.js';

describe('BookedSends (virtual time)', () => {
  it('wakes each caller at its booked time', async () => {
    const clock = new VirtualClock();
    const booked = new BookedSends(clock);
    const woken: number[] = [];
    const all = [100, 200, 300].map((at) => booked.until(at).then(() => woken.push(clock.now())));
    await clock.run();
    await Promise.all(all);
    expect(woken).toEqual([100, 200, 300]);
  });

  it('moves the bookings past the anchor by the factor, and leaves those before it', async () => {
    const clock = new VirtualClock();
    const booked = new BookedSends(clock);
    const woken: number[] = [];
    const all = [100, 300, 500, 900].map((at) =>
      booked.until(at).then(() => woken.push(clock.now())),
    );
    await clock.advance(50);
    booked.retime(200, 2); // a cut to half the rate at 200: 300 → 400, 500 → 800, 900 → 1600
    await clock.advance(550);
    booked.retime(900, 0.5); // a probe at 900: 1600 → 1250
    await clock.run();
    await Promise.all(all);
    expect(woken).toEqual([100, 400, 800, 1250]);
  });

  it('a factor of 0 (unpaced now) sends every booking past the anchor at the anchor', async () => {
    const clock = new VirtualClock();
    const booked = new BookedSends(clock);
    const woken: number[] = [];
    const all = [400, 700].map((at) => booked.until(at).then(() => woken.push(clock.now())));
    await clock.advance(100);
    booked.retime(150, 0);
    await clock.run();
    await Promise.all(all);
    expect(woken).toEqual([150, 150]);
  });

  it('an aborted caller leaves, and a retime no longer touches it', async () => {
    const clock = new VirtualClock();
    const booked = new BookedSends(clock);
    const controller = new AbortController();
    const aborted = booked.until(500, controller.signal);
    controller.abort(new Error('caller gave up'));
    await expect(aborted).rejects.toThrow('caller gave up');
    booked.retime(0, 2);
    expect(clock.pendingTimers).toBe(0);
  });
});
