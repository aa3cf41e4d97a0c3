import { type ClockReading, fromWall, toWall } from './clock-reading.js';
import { NEVER } from './congestion.js';
import { DecayingCount } from './decaying-count.js';
import type { Sample } from './sample.js';

/** A measurement needs at least this share of the window behind it. */
const MIN_HISTORY = 0.1;
/** A paced rate counts as used when the server accepted at least this share of it. */
const USED = 0.9;
/** One congestion event lowers a rate by at most this factor (here and in the adaptive rate). */
export const DEEPEST_CUT = 0.5;
/** The send times of this many recent acceptances are kept, to recount ceilings by send time. */
const SENT_KEPT = 256;
/** Weight of each accepted round trip in the round-trip-time average. */
const RTT_SMOOTHING = 0.2;
/** A window holds at least this many requests at the paced rate: slow scopes measure over longer spans. */
const WINDOW_REQUESTS = 20;

/** A send this soon after a pause ended is its first, ms (a timer wakes the pacer a little late). */
const FIRST_SEND_SLACK_MS = 1;

/** A server-requested pause and what the pacer offered since it ended. */
interface Pause {
  from: number;
  to: number;
  offered: number;
  /**
   * The earliest send after the pause among the accepted outcomes in so far:
   * when sending really resumed (a timer wakes the pacer a little late).
   * Infinity until known; not saved (a restored meter counts from the pause's end).
   */
  resumedAt: number;
}

/** Serialisable state of a {@link RateMeter}; numbers only, times as wall-clock epoch ms. */
export type RateMeterState = {
  /** `sentAt` of the first sample ({@link NEVER} before it). */
  startedAt: number;
  /** `at` of the latest sample. */
  lastAt: number;
  /** Average round-trip time of accepted requests, ms (0 before the first). */
  rttMs: number;
  /** Latest time the rate was unpaced. */
  unpacedAt: number;
  /** Start of the latest server-requested pause. */
  pauseFrom: number;
  /** End of the latest server-requested pause, 0 when none. */
  pauseTo: number;
  /** Requests the pacer offered since the latest pause ended. */
  offeredSincePause: number;
  /** Accepted outcomes, decayed count. */
  acceptedSum: number;
  /** Time of the accepted count. */
  acceptedAt: number;
  /** Requests offered by the pacer, decayed count. */
  offeredSum: number;
  /** Time of the offered count. */
  offeredAt: number;
};

/**
 * What a scope's traffic looked like recently, for {@link AdaptiveRate}: the
 * rate the server accepted (outcomes that were not throttling, by arrival), the
 * rate the pacer offered (its rate integrated over time — exact, where
 * arrivals lag a round trip and jitter), the round-trip time, and the server's
 * latest pause. Constant memory: two decaying counts (time constant half the
 * window) and a few numbers.
 */
export class RateMeter {
  readonly #baseWindowMs: number;
  #windowMs: number;
  readonly #accepted: DecayingCount;
  /** Allocated when pacing starts: most scopes are never throttled. */
  #offered: DecayingCount | undefined;
  #startedAt = NEVER;
  #lastAt = NEVER;
  #rttMs = 0;
  #unpacedAt = NEVER;
  /** The latest server pause, once there was one. */
  #pause: Pause | undefined;
  /**
   * Send times of the latest acceptances (a ring), allocated at the first: a
   * refusal arrives before the acceptances sent just ahead of it, so ceilings
   * are recounted by send time once those are in (slow start ramps so fast
   * that an average lags what the server accepted when it first refused).
   */
  #sent: number[] | undefined;
  #sentNext = 0;

  /** @param windowMs how far back rates are measured. */
  constructor(windowMs: number) {
    this.#baseWindowMs = windowMs;
    this.#windowMs = windowMs;
    this.#accepted = new DecayingCount(windowMs / 2);
  }

  /** How far back rates are measured now, ms: the base window, longer at slow paces. */
  get windowMs(): number {
    return this.#windowMs;
  }

  /** When the latest server pause ended (or ends), ms; `-Infinity` when there was none. */
  get pauseEnd(): number {
    return this.#pause?.to ?? -Infinity;
  }

  /** How long the latest server pause was, ms (0 when none). */
  get lastPauseMs(): number {
    return this.#pause === undefined ? 0 : this.#pause.to - this.#pause.from;
  }

  /** How much of [`from`, `to`] the latest server pause covered, ms. */
  pausedWithin(from: number, to: number): number {
    const pause = this.#pause;
    if (pause === undefined) return 0;
    return Math.max(0, Math.min(to, pause.to) - Math.max(from, pause.from));
  }

  /** Monotonic ms before which the server asked for silence; 0 when none is pending. */
  get pausedUntil(): number {
    const to = this.#pause?.to ?? 0;
    return to > this.#lastAt ? to : 0;
  }

  /**
   * Moves time on to the sample's `at`, crediting the pacer with `rate`
   * (requests/s, `Infinity` when unpaced) since the previous sample. Returns the
   * milliseconds that passed outside the server's pause.
   */
  advance(sample: Sample, rate: number): number {
    const { at } = sample;
    if (this.#startedAt === NEVER) this.#startedAt = Math.min(sample.sentAt, at);
    const from = this.#lastAt === NEVER ? at : Math.min(at, this.#lastAt);
    this.#lastAt = Math.max(this.#lastAt, at);
    this.#rescale(rate);
    if (rate === Infinity) this.#unpacedAt = at;
    else {
      this.#offered ??= new DecayingCount(this.#windowMs / 2);
      this.#offered.spread(from, at, rate);
    }
    const pause = this.#pause;
    if (pause === undefined) return at - from;
    if (rate !== Infinity)
      pause.offered += (Math.max(0, at - Math.max(from, pause.to)) * rate) / 1000;
    return at - from - Math.max(0, Math.min(at, pause.to) - Math.max(from, pause.from));
  }

  /** Stretches the window to hold {@link WINDOW_REQUESTS} at `rate` (requests/s; `Infinity`: unpaced). */
  #rescale(rate: number): void {
    const windowMs = Math.max(this.#baseWindowMs, (WINDOW_REQUESTS * 1000) / rate);
    if (windowMs === this.#windowMs) return;
    this.#windowMs = windowMs;
    this.#accepted.tauMs = windowMs / 2;
    if (this.#offered !== undefined) this.#offered.tauMs = windowMs / 2;
  }

  /** Records an outcome the server did not throttle. */
  accept(sample: Sample): void {
    this.#accepted.add(sample.at);
    this.#keepSent(sample.sentAt);
    const pause = this.#pause;
    if (pause !== undefined && sample.sentAt >= pause.to && sample.sentAt < pause.resumedAt) {
      pause.resumedAt = sample.sentAt;
    }
    const rtt = sample.at - sample.sentAt;
    if (!(rtt >= 0)) return;
    this.#rttMs = this.#rttMs === 0 ? rtt : this.#rttMs + (rtt - this.#rttMs) * RTT_SMOOTHING;
  }

  /**
   * Whether a refusal came for the first request sent after the latest pause
   * (within half a pacing interval at `rate` of its end, before anything sent
   * since was accepted): the server is still closed — a long window spent, a
   * pause asked too short — which says nothing about the rate. A later send's
   * refusal may overtake an earlier send's acceptance, so only the first counts.
   */
  refusedOnResume(sample: Sample, rate: number): boolean {
    const pause = this.#pause;
    if (pause === undefined || pause.resumedAt !== Infinity) return false;
    const sinceEnd = sample.sentAt - pause.to;
    return sinceEnd >= 0 && sinceEnd < Math.max(FIRST_SEND_SLACK_MS, 500 / rate);
  }

  /** Records a server-requested pause of `ms` from `at` (overlapping pauses merge). */
  pause(at: number, ms: number): void {
    const pause = this.#pause;
    if (pause === undefined || at >= pause.to)
      this.#pause = { from: at, to: at + ms, offered: 0, resumedAt: Infinity };
    else pause.to = Math.max(pause.to, at + ms);
  }

  /**
   * Accepted outcomes per second over about the window; undefined before a
   * tenth of it has passed. Outcomes arrive one round trip after their
   * requests, so the first round trip is left out of the history.
   */
  accepted(at: number): number | undefined {
    const since = this.#startedAt + this.#rttMs;
    if (!(at - since >= MIN_HISTORY * this.#windowMs)) return undefined;
    return this.#accepted.perSecond(at, since);
  }

  #keepSent(sentAt: number): void {
    this.#sent ??= [];
    const sent = this.#sent;
    if (sent.length < SENT_KEPT) sent.push(sentAt);
    else sent[this.#sentNext] = sentAt;
    this.#sentNext = (this.#sentNext + 1) % SENT_KEPT;
  }

  /**
   * Accepted requests sent in [`from`, `to`], counted from the kept send
   * times, and the span they were counted over: [`from`, `to`], or less when
   * the kept sends reach back no further (the ring is full, or sending began
   * later) — then from the oldest kept send.
   * Undefined when none are kept.
   */
  acceptedSentIn(from: number, to: number): { count: number; fromMs: number } | undefined {
    const sent = this.#sent;
    if (sent === undefined || sent.length === 0) return undefined;
    let oldest = Infinity;
    for (const t of sent) oldest = Math.min(oldest, t);
    const start = Math.max(from, oldest);
    let count = 0;
    for (const t of sent) if (t >= start && t <= to) count++;
    return { count, fromMs: start };
  }

  /**
   * What was really sent over the window: the pacer's average rate if it paced
   * throughout and the server accepted at least 90 % of it (so the pace, not
   * the concurrency limit or the demand, was what limited sending); otherwise
   * `accepted`.
   */
  sent(at: number, accepted: number): number {
    if (this.#offered === undefined || this.#unpacedAt >= at - this.#windowMs) return accepted;
    const offered = this.#offered.perSecond(at, Math.max(this.#unpacedAt, this.#startedAt));
    return accepted >= USED * offered ? offered : accepted;
  }

  /** Whether the last server pause is old enough (two windows) not to disturb the measurement. */
  calm(at: number): boolean {
    return this.#pause === undefined || this.#pause.to + this.#rttMs <= at - 2 * this.#windowMs;
  }

  /**
   * The ceiling a throttling `sample` reveals, given the `current` learned
   * rate (`Infinity` when unpaced), and whether it was measured calmly:
   * unpaced, what was accepted; after a calm spell, what was {@link sent};
   * soon after a pause, what was {@link grantedAfterPause}, cutting the
   * failed rate by at most half. Undefined when nothing is known yet.
   */
  ceilingAt(sample: Sample, current: number): { ceiling: number; calm: boolean } | undefined {
    const { at } = sample;
    const accepted = this.accepted(at);
    const calm = accepted !== undefined && this.calm(at);
    let ceiling: number;
    if (accepted === undefined) ceiling = current;
    else if (current === Infinity) ceiling = accepted;
    else if (calm) ceiling = Math.min(this.sent(at, accepted), current);
    else
      ceiling = Math.min(
        current,
        Math.max(this.grantedAfterPause(sample, current), current * DEEPEST_CUT),
      );
    return ceiling === Infinity ? undefined : { ceiling, calm };
  }

  /**
   * Throttled again soon after a pause: the server made us wait P ms, then took
   * the N requests sent in the `a` ms between sending resumed and the refused
   * request's sending, so it grants about N per max(a, P) — exact for windows
   * and logs as long as the pause, an upper bound otherwise. Until the
   * outcomes are in, N is what the pacer offered (at `rate`) over that span;
   * {@link grantWindow} says which sends to count once they are. Counting from
   * the first send after the pause (when an accepted outcome has shown it)
   * leaves out the pacer's late wake-up, and counting to the refused request's
   * send time rather than its refusal leaves out the request itself and
   * whatever went while it was answered.
   */
  grantedAfterPause(sample: Sample, rate: number): number {
    const pause = this.#pause;
    const window = this.grantWindow(sample);
    if (pause === undefined || window === undefined) return Infinity;
    const notOffered = Math.max(0, sample.at - window.to) + (window.from - pause.to);
    const granted = Math.max(0, pause.offered - (notOffered * rate) / 1000);
    return (granted * 1000) / window.spanMs;
  }

  /**
   * The sends a refusal soon after the latest pause is judged by: those in
   * [`from`, `to`] — from when sending resumed to the refused request — granted
   * per `spanMs`, max(a, P). Undefined when there was no pause.
   */
  grantWindow(sample: Sample): { from: number; to: number; spanMs: number } | undefined {
    const pause = this.#pause;
    if (pause === undefined) return undefined;
    const to = Math.max(sample.sentAt, pause.to);
    const from = pause.resumedAt <= to ? pause.resumedAt : pause.to;
    return { from, to, spanMs: Math.max(pause.to - pause.from, to - from, 1) };
  }

  /** Plain state, times as wall-clock epoch ms (`clocks` pairs the clocks now). */
  snapshot(clocks: ClockReading): RateMeterState {
    const wall = (t: number) => toWall(t, clocks);
    return {
      startedAt: wall(this.#startedAt),
      lastAt: wall(this.#lastAt),
      rttMs: this.#rttMs,
      unpacedAt: wall(this.#unpacedAt),
      pauseFrom: this.#pause === undefined ? NEVER : wall(this.#pause.from),
      pauseTo: this.#pause === undefined ? 0 : wall(this.#pause.to),
      offeredSincePause: this.#pause?.offered ?? 0,
      acceptedSum: this.#accepted.sum,
      acceptedAt: wall(this.#accepted.at),
      offeredSum: this.#offered?.sum ?? 0,
      offeredAt: this.#offered === undefined ? NEVER : wall(this.#offered.at),
    };
  }

  /** Restores state from {@link RateMeter.snapshot}, already validated (`clocks`: this process's, now). */
  restore(state: RateMeterState, clocks: ClockReading): void {
    const local = (t: number) => fromWall(t, clocks);
    this.#startedAt = local(state.startedAt);
    this.#lastAt = local(state.lastAt);
    this.#rttMs = state.rttMs;
    this.#unpacedAt = local(state.unpacedAt);
    this.#pause =
      state.pauseTo === 0
        ? undefined
        : {
            from: local(state.pauseFrom),
            to: local(state.pauseTo),
            offered: state.offeredSincePause,
            resumedAt: Infinity,
          };
    this.#accepted.sum = state.acceptedSum;
    this.#accepted.at = local(state.acceptedAt);
    if (state.offeredAt === NEVER) return;
    this.#offered ??= new DecayingCount(this.#windowMs / 2);
    this.#offered.sum = state.offeredSum;
    this.#offered.at = local(state.offeredAt);
  }
}
