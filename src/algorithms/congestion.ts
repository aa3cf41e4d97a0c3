import { REACTIONS, type Reaction } from '../signal.js';
import type { Sample } from './sample.js';

/**
 * A time before any sample, used for "never happened" in algorithm state.
 * Unlike `-Infinity` it survives `JSON.stringify`, so serialised state stays numeric.
 */
export const NEVER = -Number.MAX_VALUE;

/** The speed reaction of a sample's signal: `grow`, `cut`, `cut-hard` or `hold`. */
export function speedOf(sample: Sample): Reaction['speed'] {
  return REACTIONS[sample.signal.kind].speed;
}

/**
 * Whether a throttling sample starts a new congestion event. A request sent at
 * or before the last decrease was sent under the old, too-high setting: its
 * rejection is part of the event already reacted to, not a new one
 * (docs/control-loop.md). A burst of 429s therefore causes exactly one decrease.
 */
export function startsNewEvent(sample: Sample, lastDecreaseAt: number): boolean {
  return sample.sentAt > lastDecreaseAt;
}

/** `value` limited to the range [low, high]. */
export function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
