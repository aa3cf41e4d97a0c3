/** The history's resolution, ms. */
const BUCKET_MS = 100;
/** How many buckets it keeps: a minute and a few seconds. */
const BUCKETS = 640;

/**
 * How many requests the server accepted, by send time, over the last minute,
 * in buckets of {@link BUCKET_MS}: a fixed size whatever the rate (a ring of
 * send times holds a few seconds of a fast scope).
 */
export class GrantHistory {
  readonly #counts = new Uint32Array(BUCKETS);
  /** The latest bucket written (an absolute bucket number). */
  #latest = Number.NEGATIVE_INFINITY;
  /** Sends are recorded from this time on, ms. */
  readonly #since: number;

  /** @param since when recording begins, ms. */
  constructor(since: number) {
    this.#since = since;
  }

  /** Records an accepted request sent at `sentAt`. */
  add(sentAt: number): void {
    const bucket = Math.floor(sentAt / BUCKET_MS);
    if (bucket > this.#latest) {
      const cleared = Math.min(BUCKETS, bucket - this.#latest);
      for (let i = 0; i < cleared; i++) this.#counts[slot(bucket - i)] = 0;
      this.#latest = bucket;
    }
    const at = slot(bucket);
    if (bucket > this.#latest - BUCKETS) this.#counts[at] = (this.#counts[at] ?? 0) + 1;
  }

  /** Accepted requests sent in [`from`, `to`]; undefined where the history does not reach back to `from`. */
  countIn(from: number, to: number): number | undefined {
    const first = Math.floor(from / BUCKET_MS);
    const last = Math.min(Math.floor(to / BUCKET_MS), this.#latest);
    if (from < this.#since || first <= this.#latest - BUCKETS) return undefined;
    let count = 0;
    for (let bucket = first; bucket <= last; bucket++) count += this.#counts[slot(bucket)] ?? 0;
    return count;
  }
}

/** The ring's slot of an absolute bucket number. */
function slot(bucket: number): number {
  return ((bucket % BUCKETS) + BUCKETS) % BUCKETS;
}
