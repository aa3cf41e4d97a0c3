import { type ClockReading, fromWall, toWall } from './clock-reading.js';
import { NEVER } from './congestion.js';
import { DecayingCount } from './decaying-count.js';
import { FirstRefusal } from './first-refusal.js';
import { LatestPause } from './latest-pause.js';
import { OpeningBurst } from './opening-burst.js';
import type { RateMeterState } from './rate-meter-state.js';
import type { Sample } from './sample.js';
import { SentTimes } from './sent-times.js';

/** A measurement needs at least this share of the window behind it. */
const MIN_HISTORY = 0.1;
/** A paced rate counts as used when the server accepted at least this share of it. */
const USED = 0.9;
/** One congestion event lowers a rate by at most this factor (here and in the adaptive rate). */
export const DEEPEST_CUT = 0.5;
/** Weight of each accepted round trip in the round-trip-time average. */
const RTT_SMOOTHING = 0.2;
/** A window holds at least this many requests at the paced rate: slow scopes measure over longer spans. */
const WINDOW_REQUESTS = 20;

/** A ceiling a throttling sample reveals (see {@link RateMeter.ceilingAt}). */
export interface CeilingReading {
  readonly ceiling: number;
  /** Whether it was measured at a paced rate two windows clear of any pause. */
  readonly calm: boolean;
  /** Whether what the server accepted over its memory set it (see `ServerMemory`). */
  readonly remembered?: boolean;
}

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
  /** Allocated at the first acceptance, and {@link RateMeter.#offered} when pacing starts. */
  #accepted: DecayingCount | undefined;
  #offered: DecayingCount | undefined;
  #startedAt = NEVER;
  /** Acceptances recorded since this meter began (not saved: only a first count reads it). */
  #acceptedTotal = 0;
  #lastAt = NEVER;
  #rttMs = 0;
  #unpacedAt = NEVER;
  /** Send times of the latest acceptances, allocated at the first. */
  #sent: SentTimes | undefined;
  /** The server's latest pause, and a closure's tail. */
  readonly pauses = new LatestPause();
  /** How the sends just after the first refused one were answered. */
  readonly firstRefusal = new FirstRefusal();
  /** The sends made before the first answer, and what their refusals say they met. */
  readonly openingBurst = new OpeningBurst();
  /**
   * The refusal that began a cap on trial, what was accepted then, and whether
   * a refusal refuted the trial since; until the rate is paced (not saved).
   */
  #trial: { refusal: Sample; accepted: number | undefined; refuted: boolean } | undefined;

  /** @param windowMs how far back rates are measured. */
  constructor(windowMs: number) {
    this.#baseWindowMs = windowMs;
    this.#windowMs = windowMs;
  }

  /** How far back rates are measured now, ms: the base window, longer at slow paces. */
  get windowMs(): number {
    return this.#windowMs;
  }

  /**
   * Whether the window is stretched past the base to hold {@link WINDOW_REQUESTS} at the paced
   * rate: a slow scope, whose readings count few sends.
   */
  get slow(): boolean {
    return this.#windowMs > this.#baseWindowMs;
  }

  /** When sending began (the first sample's send), monotonic ms; `NEVER` before. */
  get startedAt(): number {
    return this.#startedAt;
  }

  /** The accepted requests' round trip (a smoothed average), ms; 0 before the first. */
  get rttMs(): number {
    return this.#rttMs;
  }

  /** Monotonic ms before which the server asked for silence; 0 when none is pending. */
  get pausedUntil(): number {
    return this.pauses.pendingAfter(this.#lastAt);
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
    this.firstRefusal.onSample(sample);
    this.openingBurst.onSample(sample);
    if (sample.capTrial === 'begins') {
      this.#trial = { refusal: sample, accepted: this.accepted(at), refuted: false };
    } else if (sample.capTrial === 'refuted' && this.#trial) this.#trial.refuted = true;
    if (rate === Infinity) this.#unpacedAt = at;
    else {
      this.#trial = undefined;
      this.#offered ??= new DecayingCount(this.#windowMs / 2);
      this.#offered.spread(from, at, rate);
    }
    return at - from - this.pauses.advance(from, at, rate);
  }

  /** Stretches the window to hold {@link WINDOW_REQUESTS} at `rate` (requests/s; `Infinity`: unpaced). */
  #rescale(rate: number): void {
    const windowMs = Math.max(this.#baseWindowMs, (WINDOW_REQUESTS * 1000) / rate);
    if (windowMs === this.#windowMs) return;
    this.#windowMs = windowMs;
    if (this.#accepted !== undefined) this.#accepted.tauMs = windowMs / 2;
    if (this.#offered !== undefined) this.#offered.tauMs = windowMs / 2;
  }

  /** Records an outcome the server did not throttle. */
  accept(sample: Sample): void {
    this.#accepted ??= new DecayingCount(this.#windowMs / 2);
    this.#accepted.add(sample.at);
    this.#sent ??= new SentTimes();
    this.#sent.keep(sample.sentAt);
    this.#acceptedTotal++;
    this.pauses.accepted(sample.sentAt);
    const rtt = sample.at - sample.sentAt;
    if (!(rtt >= 0)) return;
    this.#rttMs = this.#rttMs === 0 ? rtt : this.#rttMs + (rtt - this.#rttMs) * RTT_SMOOTHING;
  }

  /**
   * Accepted outcomes per second over about the window; undefined before a
   * tenth of it has passed. Outcomes arrive one round trip after their
   * requests, so the first round trip is left out of the history.
   */
  accepted(at: number): number | undefined {
    const since = this.#startedAt + this.#rttMs;
    if (!(at - since >= MIN_HISTORY * this.#windowMs)) return undefined;
    return this.#accepted?.perSecond(at, since) ?? 0; // none accepted yet: 0 per second
  }

  /**
   * Accepted requests sent in [`from`, `to`], counted from the kept send
   * times, and the span they were counted over: [`from`, `to`], or less when
   * the kept sends reach back no further (the ring is full, or sending began
   * later) — then from the oldest kept send.
   * Undefined when none are kept.
   */
  acceptedSentIn(from: number, to: number): { count: number; fromMs: number } | undefined {
    return this.#sent?.countIn(from, to);
  }

  /**
   * Accepted requests sent from the start of sending up to `to`, and when
   * sending started: every acceptance recorded less those kept as sent after
   * `to`. Undefined when the kept sends cannot tell (all of them were sent
   * after `to`) or none was accepted.
   */
  acceptedSentSinceStart(to: number): { count: number; fromMs: number } | undefined {
    const after = this.#sent?.countAfter(to);
    if (after === undefined || this.#acceptedTotal === 0) return undefined;
    return { count: this.#acceptedTotal - after, fromMs: this.#startedAt };
  }

  /**
   * The fastest spacing of the accepted requests sent in [`from`, `to`], as a
   * rate (see {@link SentTimes.fastestIn}); undefined with fewer than two.
   */
  fastestAcceptedIn(from: number, to: number): number | undefined {
    return this.#sent?.fastestIn(from, to);
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
    const end = this.pauses.end;
    return end === -Infinity || end + this.#rttMs <= at - 2 * this.#windowMs;
  }

  /**
   * The ceiling a throttling `sample` reveals, given the `current` learned
   * rate (`Infinity` when unpaced), and whether it was measured calmly:
   * unpaced, what was accepted — since a cap on trial began, no less than
   * what was accepted then (its pause would read as refused time), and once
   * it was refuted, just that (see {@link RateMeter.refutedTrial}); after a
   * calm spell, what was {@link sent};
   * soon after a pause, what was {@link LatestPause.granted}, cutting the
   * failed rate by at most half; and paced, no more than what the server
   * accepted over its memory, where it remembers more than a second (see
   * `ServerMemory`), and no more than a penalty met again after the same count
   * read (see `PenaltySpells`). Undefined when nothing is known yet.
   */
  ceilingAt(sample: Sample, current: number): CeilingReading | undefined {
    const { at } = sample;
    const accepted = this.#acceptedSinceTrial(at);
    const calm = accepted !== undefined && this.calm(at);
    let ceiling: number;
    if (accepted === undefined) ceiling = current;
    else if (current === Infinity) ceiling = accepted;
    else if (calm) ceiling = Math.min(this.sent(at, accepted), current);
    else
      ceiling = Math.min(
        current,
        Math.max(this.pauses.granted(sample, current), current * DEEPEST_CUT),
      );
    // Counted up to the sends whose outcomes are in: a refusal often comes back
    // before the acceptances sent a page ahead of it.
    const answered = Math.min(sample.sentAt, at - this.#rttMs);
    const remembered = Math.min(
      current === Infinity ? Infinity : this.remembered(answered),
      this.pauses.penaltyRead(sample),
    );
    if (remembered < ceiling) return { ceiling: remembered, calm, remembered: true };
    return ceiling === Infinity ? undefined : { ceiling, calm };
  }

  /** What was accepted over the server's memory up to `sentAt`, per that memory (see `ServerMemory.remembered`). */
  remembered(sentAt: number): number {
    return this.pauses.remembered(sentAt);
  }

  /**
   * Once a cap on trial was refuted (see `Sample.capTrial`), until the rate is
   * paced: the refusal that began it, the slow start's first, which the rate
   * reads as if the trial had not been (since, a pause and a burst on resuming
   * say less about the rate than the slow start did).
   */
  get refutedTrial(): Sample | undefined {
    return this.#refutedTrial()?.refusal;
  }

  /** What was accepted, read as {@link RateMeter.ceilingAt} says while a cap on trial began and the rate is unpaced. */
  #acceptedSinceTrial(at: number): number | undefined {
    const trial = this.#trial;
    const now = this.accepted(at);
    if (trial === undefined || trial.accepted === undefined)
      return trial?.refuted ? undefined : now;
    return trial.refuted ? trial.accepted : Math.max(now ?? 0, trial.accepted);
  }

  #refutedTrial(): { refusal: Sample; accepted: number | undefined } | undefined {
    return this.#trial?.refuted === true ? this.#trial : undefined;
  }

  /** Plain state, times as wall-clock epoch ms (`clocks` pairs the clocks now). */
  snapshot(clocks: ClockReading): RateMeterState {
    const wall = (t: number) => toWall(t, clocks);
    return {
      startedAt: wall(this.#startedAt),
      lastAt: wall(this.#lastAt),
      rttMs: this.#rttMs,
      unpacedAt: wall(this.#unpacedAt),
      ...this.pauses.snapshot(wall),
      acceptedSum: this.#accepted?.sum ?? 0,
      acceptedAt: wall(this.#accepted?.at ?? NEVER),
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
    this.pauses.restore(state, local);
    this.#accepted ??= new DecayingCount(this.#windowMs / 2);
    this.#accepted.sum = state.acceptedSum;
    this.#accepted.at = local(state.acceptedAt);
    if (state.offeredAt === NEVER) return;
    this.#offered ??= new DecayingCount(this.#windowMs / 2);
    this.#offered.sum = state.offeredSum;
    this.#offered.at = local(state.offeredAt);
  }
}
