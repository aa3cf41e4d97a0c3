import { NEVER } from './congestion.js';

/**
 * Both clocks read at one moment: the monotonic time samples are stamped
 * with, and the wall-clock time it was. Algorithms never read a clock, so
 * whoever saves or restores their state reads one and passes it in; with it,
 * a saved time is wall-clock epoch ms — meaning the same in every process —
 * and comes back on the restoring process's own monotonic clock.
 */
export interface ClockReading {
  /** Monotonic ms (the clock's `now()`). */
  monotonic: number;
  /** Wall-clock epoch ms at the same moment (the clock's `wallNow()`). */
  wall: number;
}

/** A monotonic time as wall-clock epoch ms; `NEVER` ("not yet") stays `NEVER`. */
export function toWall(t: number, clocks: ClockReading): number {
  return t === NEVER ? NEVER : t - clocks.monotonic + clocks.wall;
}

/** A wall-clock epoch ms time on the monotonic clock of `clocks`; `NEVER` stays `NEVER`. */
export function fromWall(t: number, clocks: ClockReading): number {
  return t === NEVER ? NEVER : t - clocks.wall + clocks.monotonic;
}
