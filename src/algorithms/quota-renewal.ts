/**
 * Windows in a row that must each grant well over the limit before the quota is read as renewing
 * faster (a boundary missed now and then, a window tallied across two, does not make a row).
 */
const WINDOWS_OVER = 3;
/**
 * "Well over": past the limit and the sends the latest answer may not count yet (those in flight
 * when it was sent, up to this share of the limit: an overtake on the way is of the last few),
 * by this share of the limit and at least {@link MIN_OVER} (one more is a boundary missed after
 * a single send).
 */
const OVER_SHARE = 0.25;
const MIN_OVER = 2;
/** The period shrinks by this after one whose sends always found this many left (the pace renewed with room). */
const SHORTER = 0.9;
const ROOM = 2;
/** ... grows by this after one in which a send took the last (the pace is at the renewal)... */
const LONGER = 1.1;
/** ... and by this after one in which a send was refused (past it). */
const MUCH_LONGER = 1.5;

/** What one tallied window of a quota was seen to grant. */
export interface WindowGrant {
  /** The window's first and latest answers' sends, ms. */
  since: number;
  until: number;
  /** Our requests between them, both included (those answered without a quota left out). */
  ours: number;
  /** What the latest left, and the least any answer of the window showed. */
  left: number;
  least: number;
}

/** One period's sends as their answers are read: the first's send, the least left, any refused. */
interface Period {
  from: number;
  least: number;
  refused: boolean;
}

/**
 * Whether a published quota renews faster than its reset says, and the pace
 * it renews at: no quota of `limit` per window grants more than `limit`
 * inside one window (nor a sliding log: what it renews inside a window is
 * what that window's sends freed), so a server whose answers in one announced
 * window add up to well more — our requests counted plus what is still left —
 * while never showing the fall our sends make (an honest quota leaves at most
 * `limit − ours / 2` somewhere in a span holding one renewal) renewed inside
 * it. A reset rounded up to whole seconds over a bucket refilled every 100 ms,
 * a window shorter than it announces: `limit / window` is then a fraction of
 * what the server grants. Seen in three windows in a row, it stays for the
 * scope, and the quota paces at `limit` per renewal period instead, the
 * period learned from `remaining` (what may still be sent):
 * first the time the fastest renewal seen takes to grant `limit`; shorter
 * after each period whose sends always found room left, longer after one in
 * which a send took the last, and more after one refused.
 */
export class QuotaRenewal {
  /** The first send of the window read last, whether it was seen over the limit, and how many in a row were. */
  #window = -Infinity;
  #over = false;
  #windowsOver = 0;
  /** The fastest renewal seen, requests/ms. */
  #perMs = 0;
  /** The renewal period, ms (set when first asked for, once faster). */
  #periodMs = Infinity;
  #period: Period | undefined;

  /** Whether the quota was seen to renew faster than it announces. */
  get faster(): boolean {
    return this.#windowsOver >= WINDOWS_OVER;
  }

  /** The renewal period once faster, ms (`Infinity` before). */
  periodMs(limit: number): number {
    if (this.faster && this.#periodMs === Infinity) this.#periodMs = limit / this.#perMs;
    return this.#periodMs;
  }

  /**
   * Reads one window's grant against the published `limit`, with `inflight`
   * of ours in flight when its latest was sent (those sent before it may
   * reach the server after it: counted as ours, not yet in its `remaining`).
   */
  onWindow(grant: WindowGrant, limit: number, inflight: number): void {
    const { since, until, ours, left, least } = grant;
    if (limit <= ROOM || this.faster) return; // a quota of one or two shows no room to pace by
    if (since !== this.#window) {
      if (!this.#over) this.#windowsOver = 0;
      this.#window = since;
      this.#over = false;
    }
    const granted = ours + left;
    const over = granted - limit - Math.min(inflight - 1, OVER_SHARE * limit);
    if (this.#over || until <= since || over < Math.max(MIN_OVER, OVER_SHARE * limit)) return;
    // A tallied window may straddle a renewal its small rise hid (a bucket never drained):
    // that grants up to twice the limit honestly, but leaves no more than `limit - ours / 2`
    // on one side of it or the other.
    if (least <= limit - ours / 2) return;
    this.#perMs = Math.max(this.#perMs, (granted - limit) / (until - since));
    this.#over = true;
    this.#windowsOver++;
  }

  /**
   * Reads an answer sent at `sentAt` leaving `remaining` (`refused`: a
   * refusal); once a period's sends are read, judges the period by them.
   */
  onAnswer(sentAt: number, remaining: number, refused: boolean): void {
    if (this.#periodMs === Infinity) return;
    const period = this.#period;
    if (period === undefined || sentAt < period.from) {
      this.#period = { from: sentAt, least: remaining, refused };
      return;
    }
    period.least = Math.min(period.least, remaining);
    period.refused ||= refused;
    if (sentAt - period.from < this.#periodMs) return;
    if (period.refused) this.#periodMs *= MUCH_LONGER;
    else if (period.least < 1) this.#periodMs *= LONGER;
    else if (period.least >= ROOM) this.#periodMs *= SHORTER;
    this.#period = undefined;
  }
}
