import type { Sample } from './sample.js';

/** A header's reset is in whole seconds, and an epoch reset is read against a whole-second `Date`. */
const HEADER_ROUNDING_MS = 2000;
/** Windows up to this long are learned from the boundaries seen, ms (longer ones must be stated). */
const MAX_LEARNED_MS = 3_600_000;
/** Evidence of two boundaries further apart than this share of a window, once aligned, is of two schedules. */
const MOVED = 0.25;

/**
 * Where the windows of a published quota begin, learned from the answers: the
 * boundaries as *send* times (a request sent before one is counted in the
 * window it closes, one sent after in the next), so neither the server's
 * clock nor how long it takes to answer matters.
 *
 * - `remaining` going up from one request to the next one sent shows a
 *   boundary between their send times; answers that overtook each other
 *   narrow it down. Brackets of later boundaries, aligned by whole windows,
 *   narrow it further: the phase is known to within a few ms after a few
 *   windows.
 * - The window length is the policy's when the server states one, else the
 *   distance between two boundaries seen, in whole seconds, as many windows
 *   between them as the reset headers allow (the headers bound how long the
 *   window after a boundary can be); kept while later boundaries agree.
 * - A header's "resets in t seconds" bounds the window's end from above
 *   (`t` rounded up, from when it was written, before the answer arrived):
 *   the end until a boundary was seen, and a check of the learned phase after
 *   (a phase ending a window well after the header's bound is dropped).
 */
export class QuotaWindow {
  #windowMs = 0;
  #stated = false;
  /** The latest boundary lies after this send (one counted in the window before it). */
  #after = -Infinity;
  /** ... and at or before this send (one counted in the window after it). */
  #before = -Infinity;
  /** The latest-sent answer read, and its `remaining`. */
  #lastSentAt = -Infinity;
  #lastRemaining = 0;
  /** The latest boundary's own bracket, and `remaining` at its upper end (for overtaken answers). */
  #bracket = { after: -Infinity, before: -Infinity, remaining: 0 };
  /** The current window's end by the headers so far (the lowest bound). */
  #headerEnd = -Infinity;
  /** The lowest header bound of an answer sent since the latest boundary: the window after it ends by then. */
  #sinceBoundary = Infinity;

  /** The window length, ms; 0 while unknown. */
  get windowMs(): number {
    return this.#windowMs;
  }

  /** The latest boundary believed, a send time in ms; `-Infinity` when none was seen. */
  get boundary(): number {
    return Math.max(this.#before, this.#after);
  }

  /** The window length the server states (its policy), ms. */
  state(windowMs: number): void {
    this.#windowMs = windowMs;
    this.#stated = true;
  }

  /** Resumes from a saved length and boundary (0 / `-Infinity`: unknown). */
  resume(windowMs: number, boundary: number): void {
    this.#windowMs = windowMs;
    this.#after = boundary;
    this.#before = boundary;
  }

  /**
   * Reads one answer (`remaining` after it and the header's ms to the reset,
   * where given); returns when the window it was counted in ends, as a send
   * time, or `undefined` when nothing tells.
   */
  observe(sample: Sample, remaining?: number, resetMs?: number): number | undefined {
    if (remaining !== undefined) this.#compare(sample, remaining);
    const header = resetMs === undefined ? undefined : this.#headerBound(sample, resetMs);
    const phased = this.#endAfter(sample.sentAt);
    if (phased === undefined) return header;
    if (header === undefined) return phased;
    if (this.#windowMs > 0 && header < phased - MOVED * this.#windowMs) {
      // The server's word ends this window well before the phase does: the windows moved.
      this.#after = -Infinity;
      this.#before = -Infinity;
      return header;
    }
    return Math.min(header, phased);
  }

  /** The end of the window a send at `sentAt` is counted in, from the learned phase. */
  #endAfter(sentAt: number): number | undefined {
    const boundary = this.boundary;
    const w = this.#windowMs;
    if (boundary === -Infinity) return undefined;
    if (w === 0) return sentAt < boundary ? boundary : undefined;
    const end = boundary + (Math.floor((sentAt - boundary) / w) + 1) * w;
    return Number.isFinite(end) ? end : undefined;
  }

  /**
   * The header's bound on the window's end: `resetMs` after the answer
   * arrived at the latest. Answers sent after the current bound, or bounding
   * later than rounding and their round trip explain, open the next window.
   */
  #headerBound(sample: Sample, resetMs: number): number {
    const bound = sample.at + resetMs;
    if (sample.sentAt >= this.#before) this.#sinceBoundary = Math.min(this.#sinceBoundary, bound);
    const slack = sample.at - sample.sentAt + HEADER_ROUNDING_MS;
    const next = sample.sentAt >= this.#headerEnd || bound > this.#headerEnd + slack;
    this.#headerEnd = next ? bound : Math.min(this.#headerEnd, bound);
    return this.#headerEnd;
  }

  /** Compares `remaining` with the answer sent before this one: a rise beyond reordering is a boundary. */
  #compare(sample: Sample, remaining: number): void {
    const { sentAt } = sample;
    if (sentAt <= this.#lastSentAt) {
      this.#narrow(sentAt, remaining);
      return;
    }
    const rise = remaining - this.#lastRemaining;
    const previous = this.#lastSentAt;
    this.#lastSentAt = sentAt;
    this.#lastRemaining = remaining;
    if (previous === -Infinity || rise <= (sample.outstanding ?? 0) + 1) return;
    this.#bracket = { after: previous, before: sentAt, remaining };
    this.#align(previous, sentAt);
  }

  /** An overtaken answer sent inside the latest bracket falls on one side of its boundary. */
  #narrow(sentAt: number, remaining: number): void {
    const bracket = this.#bracket;
    if (sentAt <= bracket.after || sentAt >= bracket.before) return;
    if (remaining > bracket.remaining) {
      // Sent earlier in the new window (more was left): the boundary is before it.
      bracket.before = sentAt;
      bracket.remaining = remaining;
      this.#before = Math.min(this.#before, sentAt);
    } else {
      bracket.after = sentAt;
      this.#after = Math.max(this.#after, sentAt);
    }
  }

  /** Merges a new boundary's bracket with the phase known, aligned by whole windows. */
  #align(after: number, before: number): void {
    if (this.#before !== -Infinity && !this.#stated) this.#learnLength(after, before);
    this.#sinceBoundary = Infinity;
    const w = this.#windowMs;
    if (this.#before === -Infinity || w === 0) {
      this.#after = after;
      this.#before = before;
      return;
    }
    const shift = Math.round((before - this.#before) / w) * w;
    const [from, to] = [this.#after + shift, this.#before + shift];
    if (after > to + MOVED * w || before < from - MOVED * w) {
      this.#after = after; // another schedule: start again from this boundary
      this.#before = before;
      return;
    }
    this.#after = Math.max(from, after);
    this.#before = Math.min(to, before);
  }

  /**
   * The window length from the distance between the latest boundary and the
   * one bracketed by `after` and `before`: kept while a whole number of
   * windows fits it, else the longest whole seconds that fit it and no longer
   * than the headers bound the first window after the latest boundary.
   */
  #learnLength(after: number, before: number): void {
    const [shortest, longest] = [after - this.#before, before - this.#after];
    const fits = (w: number) => w > 0 && Math.floor(longest / w) * w >= shortest;
    if (fits(this.#windowMs)) return;
    const bound = Math.min(this.#sinceBoundary - this.#after, longest, MAX_LEARNED_MS);
    for (let seconds = Math.floor(bound / 1000); seconds >= 1; seconds--) {
      if (fits(seconds * 1000)) {
        this.#windowMs = seconds * 1000;
        return;
      }
    }
  }
}
