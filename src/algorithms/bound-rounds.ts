import { finiteFields, type NumberRule, savedNumbers, savedRecord } from '../options.js';
import { type ClockReading, fromWall, toWall } from './clock-reading.js';
import { NEVER } from './congestion.js';
import type { Sample } from './sample.js';

/**
 * A round's shortest round trip may exceed the shortest yet by this share
 * and still be calm: HyStart's delay threshold (RFC 9406), an eighth.
 */
const RTT_RISE = 1 / 8;
/**
 * A request sent at this share of the limit in flight found it full: the
 * requests that hold a slot while the pacer spaces their sends (a clump of
 * answers frees several slots at once) are not yet counted in flight.
 */
const NEARLY_FULL = 7 / 8;
/** Share of a round's judged successes that may have been sent with the limit not (nearly) full. */
const SLACK = 1 / 8;
/** A round with fewer judged successes than this shows nothing (too few to tell a full limit). */
const MIN_JUDGED = 4;
/** Growth per round trip is at most this share of the limit (a slow start re-entered, gentler). */
const MOST_GROWTH = 0.5;

/**
 * Serialisable state of {@link BoundRounds}, times as wall-clock epoch ms. A
 * field that is not finite (no round judged yet, no round trip seen) is left
 * out, and read back as such.
 */
export type BoundRoundsState = Partial<Record<keyof typeof RULES, number>>;

const RULES = {
  startedAt: {},
  judgedFrom: {},
  limitAtStart: {},
  fullAt: {},
  judged: { min: 0, integer: true },
  notFull: { min: 0, integer: true },
  troubled: { min: 0, max: 1, integer: true },
  minRttMs: { min: 0 },
  leastRttMs: { min: 0 },
  boost: { min: 1 },
} satisfies Record<string, NumberRule>;

/** What a field not saved reads as. */
const FRESH: Readonly<Record<keyof typeof RULES, number>> = {
  startedAt: NEVER,
  judgedFrom: Infinity,
  limitAtStart: Infinity,
  fullAt: Infinity,
  judged: 0,
  notFull: 0,
  troubled: 0,
  minRttMs: Infinity,
  leastRttMs: Infinity,
  boost: 1,
};

/**
 * Round trips in which a concurrency limit bound: every request it judges was
 * sent with the limit full, every outcome was a success, and the shortest
 * round trip did not rise. Past slow start, additive increase adds one per
 * round trip, so a limit that binds far below what the server grants (a
 * capacity that rose, pages that take a second) takes minutes to catch up;
 * here each bound round doubles the next round's increase,
 * as a slow start re-entered, and any round that was not bound — the limit
 * not full (the pacer or the demand binds), a refusal, a timeout, a rising
 * latency (a ramp keyed to the rate) — starts again from one.
 *
 * A round begins with an outcome and ends with the first outcome of a request
 * sent since (one round trip); it judges the outcomes of requests sent since
 * the previous round began, against the limit then (the least the limit was
 * while they were sent).
 */
export class BoundRounds {
  /** When the current round began. */
  #startedAt = NEVER;
  /** When the previous round began: requests sent since are judged. */
  #judgedFrom = Infinity;
  /** The limit when the current round began. */
  #limitAtStart = Infinity;
  /** The limit when the previous round began: a request sent since found it full at this many in flight. */
  #fullAt = Infinity;
  #judged = 0;
  #notFull = 0;
  #clean = true;
  #minRttMs = Infinity;
  /** The shortest round trip yet: the server's latency unloaded. */
  #leastRttMs = Infinity;
  #boost = 1;

  /**
   * A success, with the (real-valued) limit `value` before it; returns how
   * much the limit may grow over this round trip.
   */
  onSuccess(sample: Sample, value: number): number {
    if (sample.sentAt >= this.#startedAt) this.#endRound(sample.at, value);
    if (sample.sentAt >= this.#judgedFrom) {
      this.#judged++;
      if (sample.inflight < NEARLY_FULL * this.#fullAt) this.#notFull++;
      this.#minRttMs = Math.min(this.#minRttMs, sample.at - sample.sentAt);
    }
    return this.#boost;
  }

  /** Anything but a success that may be congestion (a refusal, a timeout, a reset): back to one per round. */
  onTrouble(): void {
    this.#boost = 1;
    this.#clean = false;
  }

  /** Plain state, times as wall-clock epoch ms (`clocks` pairs the clocks now). */
  snapshot(clocks: ClockReading): BoundRoundsState {
    return finiteFields({
      startedAt: toWall(this.#startedAt, clocks),
      judgedFrom: toWall(this.#judgedFrom, clocks),
      limitAtStart: this.#limitAtStart,
      fullAt: this.#fullAt,
      judged: this.#judged,
      notFull: this.#notFull,
      troubled: this.#clean ? 0 : 1,
      minRttMs: this.#minRttMs,
      leastRttMs: this.#leastRttMs,
      boost: this.#boost,
    });
  }

  /**
   * Resumes from a {@link BoundRounds.snapshot} (`saved`, validated here: an
   * `InvalidOptionError` names `owner` and a malformed field).
   */
  restore(saved: unknown, owner: string, clocks: ClockReading): void {
    const record = savedRecord(owner, 'rounds', saved);
    if (record === undefined) return;
    const s = savedNumbers(`${owner} rounds`, record, RULES, FRESH);
    this.#startedAt = fromWall(s.startedAt, clocks);
    this.#judgedFrom = fromWall(s.judgedFrom, clocks);
    this.#limitAtStart = s.limitAtStart;
    this.#fullAt = s.fullAt;
    this.#judged = s.judged;
    this.#notFull = s.notFull;
    this.#clean = s.troubled === 0;
    this.#minRttMs = s.minRttMs;
    this.#leastRttMs = s.leastRttMs;
    this.#boost = s.boost;
  }

  #endRound(at: number, value: number): void {
    const limit = Math.floor(value);
    const most = MOST_GROWTH * value;
    const full = this.#judged >= MIN_JUDGED && this.#notFull <= SLACK * this.#judged;
    this.#leastRttMs = Math.min(this.#leastRttMs, this.#minRttMs);
    const calm = this.#minRttMs <= this.#leastRttMs * (1 + RTT_RISE);
    this.#boost = full && calm && this.#clean ? Math.max(1, Math.min(2 * this.#boost, most)) : 1;
    this.#judgedFrom = this.#startedAt;
    this.#fullAt = this.#limitAtStart;
    this.#startedAt = at;
    this.#limitAtStart = limit;
    this.#judged = 0;
    this.#notFull = 0;
    this.#clean = true;
    this.#minRttMs = Infinity;
  }
}
