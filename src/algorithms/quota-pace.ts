import type { RateLimitQuota } from '../headers/quota.js';
import { type ClockReading, fromWall, toWall } from './clock-reading.js';
import { QuotaRenewal } from './quota-renewal.js';
import { QuotaSends } from './quota-sends.js';
import { type QuotaAnswer, QuotaTally } from './quota-tally.js';
import { QuotaWindow } from './quota-window.js';
import { isRefusal, type Sample } from './sample.js';

/** Serialisable state of a {@link QuotaPace}, times as wall-clock epoch ms. */
export type QuotaPaceState = {
  /** Rate cap in requests/s, 0 when none. */
  cap: number;
  /** When the cap goes stale (the window resets), ms. */
  expiresAt: number;
  /** The policy's cap (limit per window) in requests/s, kept past a reset; 0 when unknown. */
  policyCap: number;
  /** The window length, ms; 0 when unknown. */
  windowMs: number;
  /** The latest reset seen happen (remaining going up), ms; `NEVER` when none. */
  resetAt: number;
};

/**
 * Turns a server's published quota into a pace, so that the 429 never comes
 * and the quota is used in full:
 *
 * - a policy (`limit` per window) caps at `limit / window`, also across resets
 *   (the window stated, or learned from the resets seen);
 * - the freshest `remaining` (the latest-sent answer's) is spread over the
 *   time to the end of the window it was counted in, less our requests sent
 *   after it (they count against it; those sent before it it has counted)
 *   and what unseen others are seen to take; an answer from a window already
 *   over says nothing of this one;
 * - nothing left, or nothing the requests in flight leave, pauses until the
 *   window ends.
 *
 * When each window ends comes from {@link QuotaWindow}: as send times, from
 * where `remaining` was seen to go up, or from the reset header until then.
 * A quota seen to renew faster than its reset says ({@link QuotaRenewal}: a
 * reset rounded up to whole seconds over a bucket refilled every 100 ms)
 * paces at `limit` per the renewal period learned instead, and a spent one
 * pauses for that period, not to the announced reset.
 */
export class QuotaPace {
  #cap = Infinity;
  #expiresAt = -Infinity;
  #limit = 0;
  readonly #window = new QuotaWindow();
  readonly #sends = new QuotaSends();
  readonly #tally = new QuotaTally(this.#sends);
  readonly #renewal = new QuotaRenewal();
  /** The end of the window the latest refusal came in, as known then (not saved); none before one. */
  #refusedUntil: number | undefined;

  /** The rate cap now, requests/s (`Infinity`: none). */
  cap(at: number): number {
    if (this.#renewal.faster) return (this.#limit * 1000) / this.#renewal.periodMs(this.#limit);
    const policy = this.#policyCap();
    return at < this.#expiresAt ? Math.min(this.#cap, policy) : policy;
  }

  /** Hears an outcome that carries no quota (an error, a page without the headers). */
  onOutcome(sample: Sample): void {
    this.#sends.onOutcome(sample.at);
    this.#tally.onUnheard(sample.sentAt);
  }

  /**
   * Reads the quota `sample` carries; returns the time to pause until when the
   * quota is spent (0: none).
   */
  onQuota(quota: RateLimitQuota, sample: Sample): number {
    this.#sends.onOutcome(sample.at);
    const limit = usable(quota.limit);
    if (limit !== undefined && limit >= 1) this.#limit = limit;
    const windowMs = usable(quota.windowMs);
    if (windowMs !== undefined && windowMs >= 1) this.#window.state(windowMs);
    const remaining = usable(quota.remaining);
    const end = this.#window.observe(sample, remaining, usable(quota.resetMs) ?? windowMs);
    if (end === undefined || end <= sample.at) return 0; // over: it tells nothing of this window
    this.#expiresAt = end;
    if (remaining === undefined) return 0;
    const { sentAt, at, inflight } = sample;
    const tally = this.#tally;
    tally.unitMs = this.#unitMs(end - sentAt);
    const theirs = tally.onAnswer({ sentAt, at, remaining, inflight }, end, this.#window.boundary);
    const latest = tally.latest as QuotaAnswer;
    const grant = tally.granted;
    if (grant !== undefined) this.#renewal.onWindow(grant, this.#limit, latest.inflight);
    this.#renewal.onAnswer(sentAt, remaining, isRefusal(sample));
    const left = latest.remaining - this.#sends.since(sample.outstanding ?? 0) - theirs;
    if (left < 1) {
      this.#cap = Infinity;
      return this.#renewal.faster
        ? Math.min(end, sample.at + this.#renewal.periodMs(this.#limit))
        : end;
    }
    this.#cap = (left * 1000) / (end - sample.at);
    return 0;
  }

  /**
   * Notes a refusal at `at` while the quota set the pace; true when one came in an earlier
   * window too (or before any window was known). A quota spent early by someone else refuses
   * once and renews at the reset; one refused again after a reset renewed less than it
   * publishes (a token bucket whose limit is its burst and whose reset is its next refill): the
   * learned rate, not the quota, is to pace it.
   */
  refusedAgain(at: number): boolean {
    const again = this.#refusedUntil !== undefined && at >= this.#refusedUntil;
    this.#refusedUntil = this.#expiresAt;
    return again;
  }

  /**
   * The time one unit of the quota takes to renew, ms: the window over the limit or, while the
   * window is unknown, `leftMs` (what is left of it, no longer than it); 0 while the limit is unknown.
   */
  #unitMs(leftMs: number): number {
    return this.#limit >= 1 ? (this.#window.windowMs || leftMs) / this.#limit : 0;
  }

  /** `limit / window` in requests/s, `Infinity` while either is unknown. */
  #policyCap(): number {
    const w = this.#window.windowMs;
    return this.#limit >= 1 && w >= 1 ? (this.#limit * 1000) / w : Infinity;
  }

  /** Plain state, times as wall-clock epoch ms (`clocks` pairs the clocks now). */
  snapshot(clocks: ClockReading): QuotaPaceState {
    const wall = (t: number) => (t === -Infinity ? 0 : toWall(t, clocks));
    return {
      cap: finite(this.#cap),
      expiresAt: wall(this.#expiresAt),
      policyCap: finite(this.#policyCap()),
      windowMs: this.#window.windowMs,
      resetAt: wall(this.#window.boundary),
    };
  }

  /** Restores state from {@link QuotaPace.snapshot}, already validated (`clocks`: this process's, now). */
  restore(state: QuotaPaceState, clocks: ClockReading): void {
    const local = (t: number) => (t === 0 ? -Infinity : fromWall(t, clocks));
    this.#cap = state.cap > 0 ? state.cap : Infinity;
    this.#expiresAt = local(state.expiresAt);
    this.#limit =
      state.policyCap > 0 && state.windowMs > 0 ? (state.policyCap * state.windowMs) / 1000 : 0;
    this.#window.resume(state.windowMs, local(state.resetAt));
  }
}

/** 0 for "none" (`Infinity` does not survive JSON). */
function finite(value: number): number {
  return value === Infinity ? 0 : value;
}

function usable(value: number | undefined): number | undefined {
  return value !== undefined && Number.isFinite(value) && value >= 0 ? value : undefined;
}
