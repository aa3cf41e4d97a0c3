import type { RateLimitQuota } from '../headers/quota.js';
import { type ClockReading, fromWall, toWall } from './clock-reading.js';
import type { Sample } from './sample.js';

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
 * - a policy (`limit` per window) caps at `limit / window`, also across resets;
 * - `remaining` is spread over the time to the reset, less the requests still
 *   in flight when the header was written (they will count against it);
 * - nothing left pauses until the reset.
 *
 * The time to the reset comes from the header (whole seconds, so up to one
 * late; counted from when the server wrote it, about halfway through the
 * round trip), or, once a reset was seen happen — `remaining` going up
 * between two responses — from that instant plus whole windows: exact to
 * within a round trip, so the last second of each window is not lost.
 */
export class QuotaPace {
  #cap = Infinity;
  #expiresAt = -Infinity;
  #policyCap = Infinity;
  #windowMs = 0;
  #resetAt = -Infinity;
  #lastRemaining: number | undefined;

  /** The rate cap now, requests/s (`Infinity`: none). */
  cap(at: number): number {
    return at < this.#expiresAt ? Math.min(this.#cap, this.#policyCap) : this.#policyCap;
  }

  /**
   * Reads the quota `sample` carries; returns the time to pause until when the
   * quota is spent (0: none).
   */
  onQuota(quota: RateLimitQuota, sample: Sample): number {
    const limit = usable(quota.limit);
    const windowMs = usable(quota.windowMs);
    if (limit !== undefined && limit >= 1 && windowMs !== undefined && windowMs >= 1) {
      this.#policyCap = (limit * 1000) / windowMs;
      this.#windowMs = windowMs;
    }
    const remaining = usable(quota.remaining);
    this.#learnReset(remaining, quota, sample);
    const written = writtenAt(sample);
    const toReset = this.#toReset(quota, written);
    if (toReset === undefined) return 0;
    this.#expiresAt = written + toReset;
    if (remaining === undefined) return 0;
    const left = remaining - (sample.outstanding ?? 0);
    if (left < 1) {
      this.#cap = Infinity;
      return remaining < 1 ? this.#expiresAt : 0;
    }
    const leftMs = this.#expiresAt - sample.at;
    this.#cap = leftMs > 0 ? (left * 1000) / leftMs : Infinity;
    return 0;
  }

  /**
   * A reset happened between the last response and this one when `remaining`
   * went up by more than the requests in flight (answers overtaking each other
   * raise it by at most that many).
   */
  #learnReset(remaining: number | undefined, quota: RateLimitQuota, sample: Sample): void {
    const last = this.#lastRemaining;
    this.#lastRemaining = remaining;
    if (remaining === undefined || last === undefined) return;
    if (remaining - last <= (sample.outstanding ?? 0) + 1) return;
    // The server counted this request in the new window: the reset came before
    // it arrived there, at the latest when it wrote the answer.
    this.#resetAt = writtenAt(sample);
    const resetMs = usable(quota.resetMs);
    if (this.#windowMs === 0 && resetMs !== undefined)
      this.#windowMs = Math.ceil(resetMs / 1000) * 1000;
  }

  /** Ms from `at` to the reset: from the learned phase when there is one, else from the header. */
  #toReset(quota: RateLimitQuota, at: number): number | undefined {
    const header = usable(quota.resetMs) ?? usable(quota.windowMs);
    const w = this.#windowMs;
    if (this.#resetAt === -Infinity || w === 0) return header;
    const next = this.#resetAt + Math.ceil((at - this.#resetAt + 1) / w) * w;
    if (!Number.isFinite(next)) return header;
    // A phase that disagrees with the header by more than a second is stale (the window moved).
    if (header !== undefined && Math.abs(next - at - header) > 1000) return header;
    return next - at;
  }

  /** Plain state, times as wall-clock epoch ms (`clocks` pairs the clocks now). */
  snapshot(clocks: ClockReading): QuotaPaceState {
    const wall = (t: number) => (t === -Infinity ? 0 : toWall(t, clocks));
    return {
      cap: finite(this.#cap),
      expiresAt: wall(this.#expiresAt),
      policyCap: finite(this.#policyCap),
      windowMs: this.#windowMs,
      resetAt: wall(this.#resetAt),
    };
  }

  /** Restores state from {@link QuotaPace.snapshot}, already validated (`clocks`: this process's, now). */
  restore(state: QuotaPaceState, clocks: ClockReading): void {
    const local = (t: number) => (t === 0 ? -Infinity : fromWall(t, clocks));
    this.#cap = state.cap > 0 ? state.cap : Infinity;
    this.#expiresAt = local(state.expiresAt);
    this.#policyCap = state.policyCap > 0 ? state.policyCap : Infinity;
    this.#windowMs = state.windowMs;
    this.#resetAt = local(state.resetAt);
  }
}

/**
 * When the server wrote `sample`'s headers, about: halfway through its round
 * trip. A header's "resets in t seconds" counts from then, not from when the
 * answer arrived — a page that takes 1.5 s to come back would otherwise push
 * every reset, and spread every quota, 1.5 s too far. Halfway is the safe
 * side where the server counts a request as it comes in and then takes its
 * time to answer (later than the truth by half that time, which only wastes
 * that much).
 */
function writtenAt(sample: Sample): number {
  return Number.isFinite(sample.sentAt) ? (sample.sentAt + sample.at) / 2 : sample.at;
}

/** 0 for "none" (`Infinity` does not survive JSON). */
function finite(value: number): number {
  return value === Infinity ? 0 : value;
}

function usable(value: number | undefined): number | undefined {
  return value !== undefined && Number.isFinite(value) && value >= 0 ? value : undefined;
}
