/** Send times kept per window to count neighbours by (past this, the latest are not kept). */
const KEPT = 512;
/**
 * How far apart a client stamps two sends of one burst at most, ms: a real
 * client stamps each as it admits it (s3 #68's opening four went out over
 * 9.5 to 38 ms, often in two pairs, crawled on a loaded loopback), where the
 * simulator stamps them at one instant.
 */
const BURST_MS = 50;

/** An answer of a quota window: its send (when, and ours in flight just after it), when it came and `remaining` after it. */
export interface Reading {
  sentAt: number;
  inflight: number;
  at: number;
  remaining: number;
}

/**
 * Whether requests we send as one burst (a slow start's opening, those
 * released as a pause ends) reach a quota's server in another order than we
 * sent them, read from the answers of one window: of two of one burst, the
 * one sent later leaving more `remaining` was counted first. Timing noise
 * between client and server (any real network's) does that; without it the
 * server counts them in order. A reading's `remaining` then places it among
 * ours only to within the others of its burst: its neighbours, counted here
 * among the window's answers.
 *
 * A burst is a run of sends each admitted after the one before with no
 * answer between them, within {@link BURST_MS} and within half the time one
 * unit of the quota takes to renew (`unitMs`, its window ÷ its limit): two
 * sends closer than a unit cannot be told apart by a smooth refill (more left
 * after the later one needs two units renewed between them), and sends paced
 * at the quota's own rate are never that close. With no unit known, only
 * sends of one instant are of one burst.
 */
export class QuotaReorder {
  /** Whether a burst was seen counted out of order. */
  #seen = false;
  /** Send times of the window's answers read, ascending, and their arrival times, ascending. */
  #sends: number[] = [];
  #arrivals: number[] = [];
  /** Sends closer than this are of one burst, ms. */
  #gapMs = 0;

  /** The time one unit of the quota takes to renew (window ÷ limit), ms; 0 or less when unknown. */
  set unitMs(unitMs: number) {
    this.#gapMs = unitMs > 0 ? Math.min(BURST_MS, unitMs / 2) : 0;
  }

  /** A new window starts with the answer `first`: its sends so far are forgotten (what was seen is kept). */
  start(first: Reading): void {
    this.#sends = [first.sentAt];
    this.#arrivals = [first.at];
  }

  /** Reads one more answer of the window against `marks` (readings kept of the same window). */
  read(answer: Reading, marks: readonly Reading[]): void {
    if (this.#sends.length < KEPT) {
      insert(this.#sends, answer.sentAt);
      insert(this.#arrivals, answer.at);
    }
    for (const mark of marks) if (this.#reordered(answer, mark)) this.#seen = true;
  }

  /** The window's answers read, beside the one sent at `sentAt`, sent in its burst too. */
  neighbours(sentAt: number): number {
    if (!this.#seen) return 0;
    const burst = this.#burst(sentAt);
    return burst === undefined ? 0 : burst.last - burst.first;
  }

  /** Whether the server counted `a` and `b`, of one burst, in the other order than they were sent. */
  #reordered(a: Reading, b: Reading): boolean {
    if (!this.#together(a.sentAt, b.sentAt)) return false;
    const order = a.sentAt - b.sentAt || a.inflight - b.inflight;
    return (order < 0 && a.remaining < b.remaining) || (order > 0 && a.remaining > b.remaining);
  }

  /** Whether sends at `a` and `b` are of one burst. */
  #together(a: number, b: number): boolean {
    if (a === b) return true;
    const burst = this.#burst(Math.min(a, b));
    return burst !== undefined && (this.#sends[burst.last] as number) >= Math.max(a, b);
  }

  /** Where the burst holding the send at `sentAt` begins and ends among the sends kept. */
  #burst(sentAt: number): { first: number; last: number } | undefined {
    const sends = this.#sends;
    const at = sends.indexOf(sentAt);
    if (at < 0) return undefined;
    const close = (i: number) => this.#backToBack(sends[i] as number, sends[i + 1] as number);
    let [first, last] = [at, at];
    while (first > 0 && close(first - 1)) first--;
    while (last + 1 < sends.length && close(last)) last++;
    return { first, last };
  }

  /** Whether sends at `a` and `b` (not before it) are close enough, with no answer read between them. */
  #backToBack(a: number, b: number): boolean {
    const arrivals = this.#arrivals;
    return b - a <= this.#gapMs && atMost(arrivals, b) === atMost(arrivals, a);
  }
}

/** Inserts `value` into the ascending `values`, after any equal. */
function insert(values: number[], value: number): void {
  values.splice(atMost(values, value), 0, value);
}

/** How many of the ascending `values` are `bound` or less. */
function atMost(values: readonly number[], bound: number): number {
  let [low, high] = [0, values.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((values[middle] as number) <= bound) low = middle + 1;
    else high = middle;
  }
  return low;
}
