import { describe, expect, it } from 'vitest';
import { FleetView } from '../../src/redis/fleet-view.js';

describe('FleetView: a worker’s estimate of Redis’s clock', () => {
  // One round trip of 200 ms (local 0 → 200); Redis read 1000 somewhere in between, so Redis
  // runs 800 to 1001 ms ahead of the local clock: the estimate (900) may be 100 ms off either way.
  const measured = () => {
    const view = new FleetView(4, Infinity);
    view.observeTime(0, 200, 1000);
    return view;
  };

  it('dates a response for a pause at the latest Redis time it can be, so the pause is never short', () => {
    const view = measured();
    expect(view.toRedis(300)).toBe(1200); // outcomes for learning: the best estimate
    for (const truth of [800, 900, 1001])
      expect(view.latestRedis(300)).toBeGreaterThanOrEqual(300 + truth);
  });

  it('holds a pause from Redis until the latest local time it can end', () => {
    const view = measured();
    view.pauseFromRedis(5000);
    for (const truth of [800, 900, 1001])
      expect(view.pauseUntil).toBeGreaterThanOrEqual(5000 - truth);
  });
});
