/** The largest of the last `size` values added (a ring), for "the most in flight recently accepted". */
export class RecentMax {
  #values: number[] = [];
  readonly #size: number;
  #next = 0;

  constructor(size: number) {
    this.#size = size;
  }

  /** Adds a value, dropping the oldest once `size` are held. */
  add(value: number): void {
    // The first value gets an array of one: a push would reserve 17 slots, and most scopes serve few requests.
    if (this.#values.length === 0) this.#values = [value];
    else if (this.#values.length < this.#size) this.#values.push(value);
    else this.#values[this.#next] = value;
    this.#next = (this.#next + 1) % this.#size;
  }

  /** The largest value held; undefined before the first. */
  get max(): number | undefined {
    return this.#values.length === 0 ? undefined : Math.max(...this.#values);
  }
}
