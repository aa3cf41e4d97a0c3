import { quantileSorted } from './percentiles.js';

/**
 * The last `capacity` numbers pushed, kept both in arrival order (a ring) and
 * in ascending order, so any quantile of the window is one index away.
 * Memory is bounded by `capacity`; a push costs O(capacity) in the worst case
 * (one array shift), which for windows of a few hundred is a memmove.
 */
export class SortedWindow {
  readonly #capacity: number;
  #ring: number[] = [];
  #sorted: number[] = [];
  #next = 0;

  /** @param capacity Window length, an integer >= 1 (the caller validates it). */
  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** Whether the window holds `capacity` numbers. */
  get full(): boolean {
    return this.#ring.length === this.#capacity;
  }

  /** The held numbers in ascending order (a read-only view; do not keep it across pushes). */
  get sorted(): readonly number[] {
    return this.#sorted;
  }

  /** Adds `value`, evicting the oldest number when the window is full. */
  push(value: number): void {
    if (this.#ring.length === 0) {
      // Arrays of one for the first number: a push would reserve 17 slots, and most scopes serve few requests.
      this.#ring = [value];
      this.#sorted = [value];
      this.#next = 1 % this.#capacity;
      return;
    }
    if (this.full) {
      const oldest = this.#ring[this.#next] as number;
      this.#sorted.splice(this.#indexOf(oldest), 1);
      this.#ring[this.#next] = value;
    } else {
      this.#ring.push(value);
    }
    this.#next = (this.#next + 1) % this.#capacity;
    this.#sorted.splice(this.#indexOf(value), 0, value);
  }

  /** The `q`-quantile (nearest rank) of the window, or `undefined` when empty. */
  quantile(q: number): number | undefined {
    return quantileSorted(this.#sorted, q);
  }

  /** First index in the sorted array whose value is >= `value` (binary search). */
  #indexOf(value: number): number {
    let low = 0;
    let high = this.#sorted.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.#sorted[mid] as number) < value) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
