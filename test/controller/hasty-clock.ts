import { type Clock, sleepOn } from '../../src/clock.js';
import type { VirtualClock } from '../../src/virtual-clock.js';

/**
 * `clock` with timers that fire up to a millisecond early (half the delay at
 * most), as Node's `setTimeout` does by `performance.now()`: a `clock` a user
 * passes in may be built on it without `systemClock`'s correction.
 */
export function hasty(clock: VirtualClock): Clock {
  const early: Clock = {
    now: () => clock.now(),
    wallNow: () => clock.wallNow(),
    setTimer: (ms, callback) => clock.setTimer(ms - Math.min(1, ms / 2), callback),
    sleep: (ms, signal) => sleepOn(early, ms, signal),
  };
  return early;
}
