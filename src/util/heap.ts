/**
 * A binary min-heap ordered by a numeric key, ties broken by insertion order so
 * that equal keys come out first-in first-out (needed for deterministic timers).
 */
export class MinHeap<T> {
  readonly #keys: number[] = [];
  readonly #seqs: number[] = [];
  readonly #items: T[] = [];
  #seq = 0;

  /** Number of items held. */
  get size(): number {
    return this.#items.length;
  }

  /** Smallest key, or `undefined` when empty. */
  peekKey(): number | undefined {
    return this.#keys[0];
  }

  /** Adds an item under `key`. */
  push(key: number, item: T): void {
    this.#keys.push(key);
    this.#seqs.push(this.#seq++);
    this.#items.push(item);
    this.#up(this.#items.length - 1);
  }

  /** Removes and returns the item with the smallest key. */
  pop(): T | undefined {
    const n = this.#items.length;
    if (n === 0) return undefined;
    const top = this.#items[0];
    this.#move(n - 1, 0);
    this.#keys.pop();
    this.#seqs.pop();
    this.#items.pop();
    if (n > 1) this.#down(0);
    return top;
  }

  #less(a: number, b: number): boolean {
    const ka = this.#keys[a] as number;
    const kb = this.#keys[b] as number;
    return ka < kb || (ka === kb && (this.#seqs[a] as number) < (this.#seqs[b] as number));
  }

  #move(from: number, to: number): void {
    this.#keys[to] = this.#keys[from] as number;
    this.#seqs[to] = this.#seqs[from] as number;
    this.#items[to] = this.#items[from] as T;
  }

  #swap(a: number, b: number): void {
    const k = this.#keys[a] as number;
    const s = this.#seqs[a] as number;
    const i = this.#items[a] as T;
    this.#move(b, a);
    this.#keys[b] = k;
    this.#seqs[b] = s;
    this.#items[b] = i;
  }

  #up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(i, parent)) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(i: number): void {
    const n = this.#items.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.#less(l, m)) m = l;
      if (r < n && this.#less(r, m)) m = r;
      if (m === i) return;
      this.#swap(i, m);
      i = m;
    }
  }
}
