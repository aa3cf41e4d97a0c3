import { drawServer } from './draw.js';
import { drawFieldServer } from './field-draw.js';
import type { FamilyServer } from './server.js';

/**
 * The server sets a bench draws from: `family`, the randomized family ratewise is tuned and judged
 * on (`drawServer`), or `field`, limits as deployed in the field that it was never tuned on
 * (`drawFieldServer`).
 */
export type ServerSet = 'family' | 'field';

/** Every {@link ServerSet}, for option validation. */
export const SERVER_SETS: readonly ServerSet[] = ['family', 'field'];

/** Server `index` of `set` with seed `seed`. */
export function drawFrom(set: ServerSet, seed: number, index: number): FamilyServer {
  return set === 'field' ? drawFieldServer(seed, index) : drawServer(seed, index);
}
