import { numberOption, savedRecord } from '../options.js';
import { type AimdOptions, type AimdSettings, aimdSettings } from './aimd-options.js';
import { BoundRounds, type BoundRoundsState } from './bound-rounds.js';
import { type ClockReading, fromWall, toWall } from './clock-reading.js';
import {
  ConcurrencyCeiling,
  type ConcurrencyCeilingState,
  readCeilingState,
} from './concurrency-ceiling.js';
import { clamp, NEVER, speedOf, startsNewEvent } from './congestion.js';
import type { ConcurrencyLimit, Sample } from './sample.js';
import { SlowStartPace, type SlowStartPaceState } from './slow-start-pace.js';

/** Share of time probing past a refused concurrency may spend in server-requested pauses. */
const PAUSED_SHARE = 0.03;

/** Serialisable state of an {@link AimdLimit}; numbers only, times as wall-clock epoch ms. */
export type AimdState = {
  /** The real-valued limit (the exposed limit is its floor). */
  value: number;
  /** Slow start continues while `value` is below this. */
  slowStartThreshold: number;
  /** `at` of the last decrease ({@link NEVER} if none). */
  lastDecreaseAt: number;
  /** Increases are held until this time (after an overload). */
  holdUntil: number;
  /** What concurrency refusals showed. */
  ceiling: ConcurrencyCeilingState;
  /** Whether the limit bound in the latest round trips; absent before the first success past slow start. */
  rounds?: BoundRoundsState;
  /**
   * How the slow start climbs; `{ ended: 1 }` once it goes one per success for
   * good; absent before its first success.
   */
  pace?: SlowStartPaceState | { ended: 1 };
};

const OWNER = 'AimdLimit';
const NO_OPTIONS: AimdOptions = Object.freeze({});

/**
 * Additive-increase / multiplicative-decrease concurrency limit, done the way
 * TCP does it rather than per response:
 *
 * - grows by about one per round trip (`1 / limit` per success), and only while
 *   the limit is used (`inflight * 2 >= limit`); with slow start, by one per
 *   success until the first decrease (more where pages take over a second,
 *   nothing but successes came and no quota is published, so it doubles about
 *   each second: see {@link SlowStartPace}); while it binds — round trips with the
 *   limit full, only successes and no latency rise — the growth per round
 *   trip doubles, up to half the limit (see {@link BoundRounds});
 * - on a refusal (429), once per congestion event, learns what it shows: a
 *   request refused at more in flight than any recently accepted one was
 *   refused for its concurrency (a concurrency cap), so the limit drops to the
 *   most in flight that was accepted and slow start ends there; one refused at
 *   a concurrency the server had been accepting was refused for the rate,
 *   which the pacer governs: the limit stays, and keeps growing only while it
 *   is used, so it settles near twice what the pace keeps in flight. A request
 *   sent before the last decrease does not decrease again, so a burst of 429s
 *   is one event;
 * - on a reset or timeout, decreases by `backoffRatio` once per event; on
 *   overload (`cut-hard`), by `overloadRatio`, and holds increases for
 *   `overloadHoldMs`; neither for a request sent while under half the limit
 *   was in flight (the limit was not what failed).
 */
export class AimdLimit implements ConcurrencyLimit {
  readonly #s: AimdSettings;
  #value: number;
  #slowStartThreshold: number;
  /** `at` of the last decrease; undefined before the first (no boxed `NEVER` per scope). */
  #lastDecreaseAt: number | undefined;
  /** No increase before this time; undefined before the first overload. */
  #holdUntil: number | undefined;
  /** Created with the first refusal of a concurrency: most scopes are never refused. */
  #ceiling: ConcurrencyCeiling | undefined;
  /** Created with the first success past slow start: most scopes never leave it. */
  #rounds: BoundRounds | undefined;
  /**
   * How a slow start that met nothing but successes climbs (see {@link SlowStartPace}):
   * created at its first success if that took over a second, null for good otherwise,
   * once anything else came or a quota was published.
   */
  #pace: SlowStartPace | null | undefined;

  /**
   * @param options validated (unknown keys are rejected) once per options
   *   object: reuse one object for many scopes; it is not read again.
   */
  constructor(options: AimdOptions = NO_OPTIONS) {
    this.#s = aimdSettings(options);
    this.#value = this.#s.initialLimit;
    this.#slowStartThreshold = this.#s.slowStartThreshold;
  }

  /** The current limit: `max(min, floor(value))`. */
  get limit(): number {
    return Math.max(this.#s.min, Math.floor(this.#value));
  }

  /** Updates the limit from one sample and returns the new limit. */
  onSample(sample: Sample): number {
    const refuted = this.#ceiling?.refutedBy(sample);
    if (refuted !== undefined) {
      // The cap on trial was a rate limit (or rose): forget it, resume as before it.
      this.#ceiling = undefined;
      this.#value = Math.max(this.#value, refuted.limit);
      this.#slowStartThreshold = refuted.threshold;
    }
    // A published quota paces the sends by itself: the climb need not outrun the round trip.
    if (sample.signal.quota !== undefined) this.#pace = null;
    const speed = speedOf(sample);
    if (speed === 'grow') {
      this.#ceiling?.onAccepted(sample);
      this.#grow(sample);
    } else if (speed !== 'hold') {
      this.#rounds?.onTrouble();
      this.#pace = null;
    }
    if (speed === 'cut') {
      if (sample.signal.kind === 'throttled') this.#refused(sample);
      else this.#decrease(sample, this.#s.backoffRatio);
    } else if (speed === 'cut-hard') this.#overload(sample);
    return this.limit;
  }

  /** Plain state for a store, times as wall-clock epoch ms (`clocks` pairs the clocks now). */
  snapshot(clocks: ClockReading): AimdState {
    const state: AimdState = {
      value: this.#value,
      slowStartThreshold: this.#slowStartThreshold,
      lastDecreaseAt: toWall(this.#lastDecreaseAt ?? NEVER, clocks),
      holdUntil: toWall(this.#holdUntil ?? NEVER, clocks),
      ceiling: this.#ceiling?.snapshot(clocks) ?? { ceiling: 0, probeStep: 0 },
    };
    if (this.#rounds !== undefined) state.rounds = this.#rounds.snapshot(clocks);
    if (this.#pace !== undefined) state.pace = this.#pace?.snapshot(clocks) ?? { ended: 1 };
    return state;
  }

  #grow(sample: Sample): void {
    const slowStart = this.#value < this.#slowStartThreshold;
    const perRound = slowStart ? this.#perSuccess(sample) : this.#perRound(sample);
    if (sample.at < (this.#holdUntil ?? NEVER)) return;
    // App-limited: no evidence of headroom. A slow start outpacing its round trips judges
    // against the limit the request was sent under, not the one it has since grown to.
    const sentUnder = slowStart && this.#pace ? this.#pace.limitWhenSent() : this.#value;
    if (this.#underHalfUsed(sample, sentUnder)) return;
    const step = slowStart ? perRound : perRound / this.#value;
    const cap = Math.max(this.#value, Math.min(this.#s.max, this.#ceiling?.cap ?? Infinity));
    this.#value = Math.min(cap, this.#value + step);
  }

  /** Growth per success in slow start: one, more on long round trips (see {@link SlowStartPace}). */
  #perSuccess(sample: Sample): number {
    if (this.#pace === undefined)
      this.#pace = SlowStartPace.mayOutpace(sample) ? new SlowStartPace() : null;
    return this.#pace === null ? 1 : this.#pace.onSuccess(sample, this.#value);
  }

  /** Growth per round trip past slow start: one, more while the limit binds (see {@link BoundRounds}). */
  #perRound(sample: Sample): number {
    this.#rounds ??= new BoundRounds();
    return this.#rounds.onSuccess(sample, this.#value);
  }

  /** Whether under half the limit (`limit`) was in flight: the outcome says nothing about the limit. */
  #underHalfUsed(sample: Sample, limit = this.#value): boolean {
    return sample.inflight * 2 < limit;
  }

  #refused(sample: Sample): void {
    if (sample.overConcurrency !== true) return; // refused for the rate: the pacer's concern
    // A cap on trial found lower is lowered by each such refusal, one event or not (see `CapTrial`).
    const newEvent = startsNewEvent(sample, this.#lastDecreaseAt ?? NEVER);
    if (!newEvent && sample.capTrial !== 'lowered') return;
    if (newEvent) this.#lastDecreaseAt = sample.at;
    const ceiling = this.#concurrencyCeiling();
    ceiling.onRefused(sample, this.#s.min, {
      limit: this.#value,
      threshold: this.#slowStartThreshold,
    });
    this.#value = Math.max(this.#s.min, Math.min(this.#value, ceiling.cap));
    this.#slowStartThreshold = this.#value;
  }

  #concurrencyCeiling(): ConcurrencyCeiling {
    this.#ceiling ??= new ConcurrencyCeiling(this.#s.refusedShare, PAUSED_SHARE);
    return this.#ceiling;
  }

  #overload(sample: Sample): void {
    this.#holdUntil = Math.max(this.#holdUntil ?? NEVER, sample.at + this.#s.overloadHoldMs);
    this.#decrease(sample, this.#s.overloadRatio);
  }

  #decrease(sample: Sample, ratio: number): void {
    if (this.#underHalfUsed(sample)) return; // the limit was not in use: no evidence it is too high
    if (!startsNewEvent(sample, this.#lastDecreaseAt ?? NEVER)) return;
    this.#lastDecreaseAt = sample.at;
    this.#value = Math.max(this.#s.min, this.#value * ratio);
    this.#slowStartThreshold = this.#value;
  }

  /**
   * Resumes a fresh limit from a {@link AimdLimit.snapshot} taken in this
   * process or another (`clocks` pairs this one's clocks now). Each field is
   * validated (an `InvalidOptionError` names a malformed one); missing fields
   * keep their fresh value.
   */
  restore(state: Readonly<Record<string, unknown>>, clocks: ClockReading): void {
    const owner = `${OWNER} state`;
    const value = numberOption(owner, 'value', state.value, this.#value, {});
    this.#value = clamp(value, this.#s.min, this.#s.max);
    this.#slowStartThreshold = numberOption(
      owner,
      'slowStartThreshold',
      state.slowStartThreshold,
      this.#slowStartThreshold,
      { min: 0 },
    );
    const time = (name: 'lastDecreaseAt' | 'holdUntil') =>
      fromWall(numberOption(owner, name, state[name], NEVER), clocks);
    this.#lastDecreaseAt = time('lastDecreaseAt');
    this.#holdUntil = time('holdUntil');
    const ceiling = readCeilingState(state.ceiling, owner);
    if (ceiling !== undefined) this.#concurrencyCeiling().restore(ceiling, clocks);
    if (state.rounds !== undefined) {
      this.#rounds = new BoundRounds();
      this.#rounds.restore(state.rounds, owner, clocks);
    }
    this.#restorePace(savedRecord(owner, 'pace', state.pace), `${owner} pace`, clocks);
  }

  #restorePace(
    saved: Readonly<Record<string, unknown>> | undefined,
    owner: string,
    clocks: ClockReading,
  ): void {
    if (saved === undefined) return;
    if (numberOption(owner, 'ended', saved.ended, 0, { min: 0, max: 1, integer: true }) === 1) {
      this.#pace = null;
      return;
    }
    this.#pace = new SlowStartPace();
    this.#pace.restore(saved, owner, clocks);
  }
}
