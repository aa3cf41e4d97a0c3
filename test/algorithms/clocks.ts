import type { ClockReading } from '../../src/algorithms/clock-reading.js';

/** A process whose two clocks read the same number: saved times come out as they went in. */
export const SAME_CLOCKS: ClockReading = Object.freeze({ monotonic: 0, wall: 0 });

/** `state` taken through JSON, as a store keeps it. */
export function throughJson<T extends object>(state: T): T {
  return JSON.parse(JSON.stringify(state)) as T;
}
