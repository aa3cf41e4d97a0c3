/** Send times kept per window to count neighbours by (past this, the latest are not kept). */
const KEPT = 512;

/** An answer of a quota window: its send (when, and ours in flight just after it) and `remaining` after it. */
export interface Reading {
  sentAt: number;
  inflight: number;
  remaining: number;
}

/**
 * Whether requests we send at one instant (a slow start's first burst, those
 * released as a pause ends) reach a quota's server in another order than we
 * sent them, read from the answers of one window: of two sent at one time,
 * the one sent later (more in flight after it) leaving more `remaining` was
 * counted first. Timing noise between client and server (any real
 * network's) does that; without it the server counts them in order. A
 * reading's `remaining` then places it among ours only to within the others
 * sent at its instant: its neighbours, counted here among the window's
 * answers. Sends at different times are not compared: on a bucket that
 * refills between them, more left after a later send is a refill.
 */
export class QuotaReorder {
  /** Whether a burst was seen counted out of order. */
  #seen = false;
  /** Send times of the window's answers read. */
  #sends: number[] = [];

  /** A new window starts with the answer `first`: its sends so far are forgotten (what was seen is kept). */
  start(first: Reading): void {
    this.#sends = [first.sentAt];
  }

  /** Reads one more answer of the window against `marks` (readings kept of the same window). */
  read(answer: Reading, marks: readonly Reading[]): void {
    if (this.#sends.length < KEPT) this.#sends.push(answer.sentAt);
    for (const mark of marks) if (reordered(answer, mark)) this.#seen = true;
  }

  /** The window's answers read, beside the one sent at `sentAt`, sent at that instant too. */
  neighbours(sentAt: number): number {
    if (!this.#seen) return 0;
    let near = 0;
    for (const other of this.#sends) if (other === sentAt) near++;
    return Math.max(0, near - 1);
  }
}

/** Whether the server counted `a` and `b`, sent at one instant, in the other order than they were sent. */
function reordered(a: Reading, b: Reading): boolean {
  if (a.sentAt !== b.sentAt) return false;
  const order = a.inflight - b.inflight;
  return (order < 0 && a.remaining < b.remaining) || (order > 0 && a.remaining > b.remaining);
}
