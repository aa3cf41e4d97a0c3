import type { WindowGrant } from './quota-renewal.js';
import { QuotaReorder } from './quota-reorder.js';
import type { QuotaSends } from './quota-sends.js';

/** Others' use is read over at least this much of a window's send times, ms. */
const MIN_SPAN_MS = 500;
/** Outcomes without a quota kept at most per window (errors are rare; past this, others' use is not read). */
const UNHEARD_KEPT = 256;

/** An answer read: when it was sent and arrived, `remaining` after it, and ours in flight just after it was sent (it included). */
export interface QuotaAnswer {
  sentAt: number;
  at: number;
  remaining: number;
  inflight: number;
}

/** An answer that was the latest sent when it arrived, with its send's ordinal among ours. */
interface Mark extends QuotaAnswer {
  ordinal: number | undefined;
}

/** What others took over a span of a window's send times (ms). */
interface Seen {
  theirs: number;
  spanMs: number;
}

/**
 * What the answers of one quota window tell together:
 *
 * - the freshest `remaining`: the latest-sent answer's (one overtaken by a
 *   later-sent answer's tells of fewer arrivals);
 * - how fast others (other clients of the same quota, unseen) use the window
 *   up: what `remaining` fell by from the window's first answer to the
 *   latest, less our own requests sent in between (their ordinals, from
 *   {@link QuotaSends}; those answered without a quota — an error the limit
 *   never saw — left out). A quota spread to the last request with others
 *   drawing on it too runs out before the window ends, and the last request
 *   is refused: what they will take by the end is set aside, at the rate
 *   seen over this window and the one before. Requests sent at one instant
 *   (a burst) may reach the server in another order than they were sent,
 *   under timing noise on the way (see {@link QuotaReorder}): what that
 *   explains at either end is not read as others'.
 */
export class QuotaTally {
  readonly #sends: QuotaSends;
  /** The window tallied (its end), its first and latest answers. */
  #end = -Infinity;
  #first: Mark | undefined;
  #latest: Mark | undefined;
  /** The least `remaining` any answer of the window showed. */
  #least = Infinity;
  /** Send times of ours in the window answered without a quota. */
  #unheard: number[] = [];
  /** What others took over the window before. */
  #before: Seen = { theirs: 0, spanMs: 0 };
  /** How closely sent requests reach the server in the other order. */
  readonly #reorder = new QuotaReorder();

  /** Counts our sends with `sends` (which hears every outcome). */
  constructor(sends: QuotaSends) {
    this.#sends = sends;
  }

  /** The time one unit of the quota takes to renew (window ÷ limit), ms; 0 when unknown (see {@link QuotaReorder}). */
  set unitMs(unitMs: number) {
    this.#reorder.unitMs = unitMs;
  }

  /** The window tallied's freshest answer (the latest sent), if any. */
  get latest(): QuotaAnswer | undefined {
    return this.#latest;
  }

  /**
   * Counts an answer of ours in the window ending at `end`, the latest
   * boundary seen at `boundary` (one sent after the window tallied ends, or
   * after a boundary its first answer was sent before, starts the next);
   * returns what others are expected to take from the latest send answered to the end.
   */
  onAnswer(answer: QuotaAnswer, end: number, boundary: number): number {
    const first = this.#first;
    const latest = this.#latest;
    const tallied =
      first !== undefined &&
      answer.sentAt < this.#end &&
      !(first.sentAt < boundary && answer.sentAt >= boundary);
    this.#end = end; // the same window, its end perhaps better known; or the next
    if (!tallied) {
      this.#before = this.#seen() ?? { theirs: 0, spanMs: 0 };
      this.#first = this.#latest = this.#mark(answer);
      this.#unheard = [];
      this.#least = answer.remaining;
      this.#reorder.start(answer);
    } else {
      this.#reorder.read(answer, [first as Mark, latest as Mark]);
      if (answer.sentAt > (latest as Mark).sentAt) this.#latest = this.#mark(answer);
      this.#least = Math.min(this.#least, answer.remaining);
    }
    return this.#expected(end);
  }

  /**
   * What the window tallied is seen to grant (see {@link WindowGrant}); `undefined` while the
   * count is unsure.
   */
  get granted(): WindowGrant | undefined {
    const first = this.#first;
    const latest = this.#latest;
    const ours = this.#oursBetween();
    if (first === undefined || latest === undefined || ours === undefined) return undefined;
    const { sentAt: until, remaining: left } = latest;
    return { since: first.sentAt, until, ours: ours + 1, left, least: this.#least };
  }

  /** One of ours sent at `sentAt` was answered without a quota: the limit did not count it. */
  onUnheard(sentAt: number): void {
    const first = this.#first;
    if (first !== undefined && sentAt > first.sentAt && this.#unheard.length < UNHEARD_KEPT)
      this.#unheard.push(sentAt);
  }

  /** The latest answer, with its send's ordinal. */
  #mark(answer: QuotaAnswer): Mark {
    this.#sends.countFrom(answer.sentAt, answer.inflight);
    return { ...answer, ordinal: this.#sends.ordinal };
  }

  /** What others are expected to take from the latest send answered to `end`. */
  #expected(end: number): number {
    const now = this.#seen();
    const seen = {
      theirs: this.#before.theirs + (now?.theirs ?? 0),
      spanMs: this.#before.spanMs + (now?.spanMs ?? 0),
    };
    if (seen.spanMs < MIN_SPAN_MS || seen.theirs <= 0) return 0;
    return (seen.theirs * (end - (this.#latest as Mark).sentAt)) / seen.spanMs;
  }

  /** What others took of the window tallied from its first answer to the latest, if it tells. */
  #seen(): Seen | undefined {
    const first = this.#first;
    const latest = this.#latest;
    const ours = this.#oursBetween();
    if (first === undefined || latest === undefined || ours === undefined) return undefined;
    const spanMs = latest.sentAt - first.sentAt;
    const fell = first.remaining - latest.remaining - ours;
    // Less than none: a boundary crossed unseen, or sends the limit did not count; it tells nothing.
    if (spanMs < MIN_SPAN_MS || fell < 0) return undefined;
    // Each end placed among ours only to within its neighbours: what they explain is not others'.
    const reorder = this.#reorder;
    const unplaced = reorder.neighbours(first.sentAt) + reorder.neighbours(latest.sentAt);
    return { theirs: Math.max(0, fell - unplaced), spanMs };
  }

  /**
   * Our requests the limit counted after the window's first answer up to its latest (it
   * included), `undefined` when unsure.
   */
  #oursBetween(): number | undefined {
    const first = this.#first;
    const latest = this.#latest;
    if (first?.ordinal === undefined || latest?.ordinal === undefined) return undefined;
    if (this.#unheard.length >= UNHEARD_KEPT) return undefined;
    let ours = latest.ordinal - first.ordinal;
    for (const sentAt of this.#unheard) if (sentAt <= latest.sentAt) ours--;
    return ours;
  }
}
