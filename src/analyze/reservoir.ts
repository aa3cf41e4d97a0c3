import type { Random } from '../random.js';

/**
 * A uniform random sample of at most `capacity` items from a stream of any
 * length (Vitter's algorithm R): every item seen has the same chance,
 * `capacity / seen`, of being held. Until `capacity` items have arrived it
 * holds all of them, so statistics over it are exact for short streams and
 * memory stays bounded for long ones. Randomness is injected: a seeded
 * `Random` makes the sample reproducible.
 */
export class Reservoir<T> {
  readonly #capacity: number;
  readonly #random: Random;
  readonly #items: T[] = [];
  #seen = 0;

  /** @param capacity Largest number of items held, an integer >= 1 (the caller validates it). */
  constructor(capacity: number, random: Random) {
    this.#capacity = capacity;
    this.#random = random;
  }

  /** Items offered so far. */
  get seen(): number {
    return this.#seen;
  }

  /** Whether the sample holds every item offered (nothing was dropped yet). */
  get exact(): boolean {
    return this.#seen <= this.#capacity;
  }

  /** The held items, in no particular order (a read-only view). */
  get items(): readonly T[] {
    return this.#items;
  }

  /** Offers one item. */
  add(item: T): void {
    this.#seen++;
    if (this.#items.length < this.#capacity) {
      this.#items.push(item);
      return;
    }
    const slot = Math.floor(this.#random.next() * this.#seen);
    if (slot < this.#capacity) this.#items[slot] = item;
  }
}
