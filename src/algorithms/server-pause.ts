import type { Sample } from './sample.js';

/** A send this soon after a pause ended is its first, ms (a timer wakes the pacer a little late). */
const FIRST_SEND_SLACK_MS = 1;

/**
 * A server-requested pause (Retry-After, a spent quota) and what the pacer
 * offered since it ended: what a refusal soon after it is judged by.
 */
export class ServerPause {
  /** Start of the pause, ms. */
  from: number;
  /** End of the pause, ms. */
  to: number;
  /** Requests the pacer offered since the pause ended. */
  offered: number;
  /**
   * The longest pause one answer asked for, ms: what the server's limit made
   * us wait. Answers reported late (timing noise) merge into a pause longer
   * than any of them asked for; the grant is judged per this, not the merge.
   */
  askedMs: number;
  /**
   * The earliest send after the pause among the accepted outcomes in so far:
   * when sending really resumed (a timer wakes the pacer a little late).
   * Infinity until known; not saved (a restored meter counts from the pause's end).
   */
  resumedAt = Infinity;

  constructor(from: number, to: number, offered = 0) {
    this.from = from;
    this.to = to;
    this.offered = offered;
    this.askedMs = to - from;
  }

  /** How much of [`from`, `to`] the pause covered, ms. */
  within(from: number, to: number): number {
    return Math.max(0, Math.min(to, this.to) - Math.max(from, this.from));
  }

  /** Credits the pacer's offer at `rate` (requests/s) over [`from`, `at`], the part after the pause. */
  credit(from: number, at: number, rate: number): void {
    this.offered += (Math.max(0, at - Math.max(from, this.to)) * rate) / 1000;
  }

  /** Notes an accepted outcome: a send after the pause shows when sending resumed. */
  accepted(sentAt: number): void {
    if (sentAt >= this.to && sentAt < this.resumedAt) this.resumedAt = sentAt;
  }

  /**
   * Whether a refusal came for the first request sent after the pause (within
   * half a pacing interval at `rate` of its end, before anything sent since was
   * accepted): the server is still closed — a long window spent, a pause asked
   * too short — which says nothing about the rate. A later send's refusal may
   * overtake an earlier send's acceptance, so only the first counts; with
   * timing noise (`reorderMs`, see `ReorderSpan`) a send that close
   * after the first may be the first whose refusal comes back.
   */
  refusedOnResume(sample: Sample, rate: number, reorderMs = 0): boolean {
    return this.sentOnResume(sample, Math.max(FIRST_SEND_SLACK_MS, 500 / rate, reorderMs));
  }

  /**
   * Whether `sample` was sent within `spanMs` of the pause's end, before
   * anything sent since was accepted (see {@link ServerPause.refusedOnResume}).
   */
  sentOnResume(sample: Sample, spanMs: number): boolean {
    if (this.resumedAt !== Infinity) return false;
    const sinceEnd = sample.sentAt - this.to;
    return sinceEnd >= 0 && sinceEnd < spanMs;
  }

  /**
   * The sends a refusal soon after the pause is judged by: those in [`from`,
   * `to`] — from when sending resumed to the refused request — granted per
   * `spanMs`, max(a, P), P the longest pause one answer asked for.
   */
  grantWindow(sample: Sample): { from: number; to: number; spanMs: number } {
    const to = Math.max(sample.sentAt, this.to);
    const from = this.resumedAt <= to ? this.resumedAt : this.to;
    return { from, to, spanMs: Math.max(this.askedMs, to - from, 1) };
  }

  /**
   * Throttled again soon after the pause: the server made us wait P ms, then
   * took the N requests sent in the `a` ms between sending resumed and the
   * refused request's sending, so it grants about N per max(a, P) — exact for
   * windows and logs as long as the pause, an upper bound otherwise. Until the
   * outcomes are in, N is what the pacer offered (at `rate`) over that span;
   * {@link ServerPause.grantWindow} says which sends to count once they are.
   * Counting from the first send after the pause (when an accepted outcome has
   * shown it) leaves out the pacer's late wake-up, and counting to the refused
   * request's send time rather than its refusal leaves out the request itself
   * and whatever went while it was answered.
   */
  granted(sample: Sample, rate: number): number {
    const window = this.grantWindow(sample);
    const notOffered = Math.max(0, sample.at - window.to) + (window.from - this.to);
    const granted = Math.max(0, this.offered - (notOffered * rate) / 1000);
    return (granted * 1000) / window.spanMs;
  }
}
