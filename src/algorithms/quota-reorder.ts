/** Sends further apart than this are not read as reordered on the way, ms (a boundary between them, rather). */
const MAX_REORDER_MS = 100;
/** Send times kept per window to count neighbours by (past this, the latest are not kept). */
const KEPT = 512;

/** An answer of a quota window: its send (when, and ours in flight just after it) and `remaining` after it. */
export interface Reading {
  sentAt: number;
  inflight: number;
  remaining: number;
}

/**
 * How far apart two of our requests may be sent and still reach a quota's
 * server in the other order, learned from the answers of one window: a
 * request sent after another that leaves more `remaining` was counted before
 * it (at one send time, the order is the requests in flight after each).
 * Timing noise between client and server (any real network's) reorders
 * requests sent within a few ms of each other; a burst sent at one instant
 * reaches the server in any order. A reading's `remaining` then places it
 * among ours only to within the others sent that close to it: its
 * neighbours, counted here among the window's answers. Until a reordering is
 * seen, none is assumed: no neighbours.
 */
export class QuotaReorder {
  /** The widest reordering seen, ms; `undefined` while none was. */
  #spanMs: number | undefined;
  /** Send times of the window's answers read. */
  #sends: number[] = [];

  /** A new window starts with the answer `first`: its sends so far are forgotten, the span kept. */
  start(first: Reading): void {
    this.#sends = [first.sentAt];
  }

  /** Reads one more answer of the window against `marks` (readings kept of the same window). */
  read(answer: Reading, marks: readonly Reading[]): void {
    if (this.#sends.length < KEPT) this.#sends.push(answer.sentAt);
    for (const mark of marks) {
      const gap = Math.abs(answer.sentAt - mark.sentAt);
      if (gap <= MAX_REORDER_MS && reordered(answer, mark))
        this.#spanMs = Math.max(this.#spanMs ?? 0, gap);
    }
  }

  /** The window's answers read, beside the one sent at `sentAt`, sent within the span of it. */
  neighbours(sentAt: number): number {
    const span = this.#spanMs;
    if (span === undefined) return 0;
    let near = 0;
    for (const other of this.#sends) if (Math.abs(other - sentAt) <= span) near++;
    return Math.max(0, near - 1);
  }
}

/** Whether the server counted `a` and `b` in the other order than they were sent. */
function reordered(a: Reading, b: Reading): boolean {
  const order = a.sentAt - b.sentAt || a.inflight - b.inflight;
  return (order < 0 && a.remaining < b.remaining) || (order > 0 && a.remaining > b.remaining);
}
