import { finiteFields, type NumberRule, savedNumbers } from '../options.js';
import { type ClockReading, fromWall, toWall } from './clock-reading.js';
import { NEVER } from './congestion.js';
import type { Sample } from './sample.js';

/**
 * A slow start on flat latency doubles at least this often, ms, however long
 * the server's pages take.
 */
const DOUBLING_MS = 1000;
/**
 * A round's shortest round trip may exceed the shortest yet by this share and
 * still be flat: HyStart's delay threshold (RFC 9406) is an eighth; pages of a
 * second or more jitter by hundreds of ms, and a round of a few answers shows
 * the floor only roughly.
 */
const RTT_RISE = 1 / 4;

/**
 * Serialisable state of {@link SlowStartPace}, times as wall-clock epoch ms; a
 * field that is not finite (no round trip seen yet) is left out.
 */
export type SlowStartPaceState = Partial<Record<keyof typeof RULES, number>>;

const RULES = {
  startedAt: {},
  roundMinRttMs: { min: 0 },
  leastRttMs: { min: 0 },
  flat: { min: 0, max: 1, integer: true },
  roundLimit: { min: 0 },
  lastRoundLimit: { min: 0 },
} satisfies Record<string, NumberRule>;

/** What a field not saved reads as. */
const FRESH: Readonly<Record<keyof typeof RULES, number>> = {
  startedAt: NEVER,
  roundMinRttMs: Infinity,
  leastRttMs: Infinity,
  flat: 1,
  roundLimit: 0,
  lastRoundLimit: 0,
};

/**
 * How much each success of a slow start adds to the concurrency limit. One
 * per success doubles the limit each round trip: on pages of a second or two
 * and a server granting a hundred a second or more, a dozen seconds of
 * climbing before the limit is anywhere near what the server grants. Where
 * the shortest round trip yet (`rtt`) is over a second and the last round's
 * shortest stayed within a quarter of it (no queue building up, no delay keyed
 * to the rate), each success adds `2^(rtt / 1 s) − 1` instead, so the limit
 * doubles about each second; a round whose latency rose goes back to one for
 * the next. The owner drops it at the first outcome that is not a success.
 *
 * A round begins with an outcome and ends with the first outcome of a request
 * sent since (one round trip).
 */
export class SlowStartPace {
  /**
   * Whether a slow start whose first success is `sample` may ever climb faster
   * than one per success: not after a round trip of a second or less, as the
   * shortest round trip yet only falls.
   */
  static mayOutpace(sample: Sample): boolean {
    return sample.at - sample.sentAt > DOUBLING_MS;
  }

  /** When the current round began. */
  #startedAt = NEVER;
  #roundMinRttMs = Infinity;
  /** The shortest round trip yet: the server's latency unloaded. */
  #leastRttMs = Infinity;
  /** Whether the last round's latency was flat. */
  #flat = true;
  /** The limit when the current round began, and when the one before it began. */
  #roundLimit = 0;
  #lastRoundLimit = 0;

  /**
   * A success of the slow start, the limit being `limit` before it: returns
   * what it adds to the limit.
   */
  onSuccess(sample: Sample, limit: number): number {
    const rttMs = sample.at - sample.sentAt;
    if (sample.sentAt >= this.#startedAt) this.#endRound(sample.at, limit);
    this.#roundMinRttMs = Math.min(this.#roundMinRttMs, rttMs);
    this.#leastRttMs = Math.min(this.#leastRttMs, rttMs);
    if (!this.#flat || !(this.#leastRttMs > DOUBLING_MS)) return 1;
    return 2 ** (this.#leastRttMs / DOUBLING_MS) - 1;
  }

  /**
   * The limit the request of a success just passed to
   * {@link SlowStartPace.onSuccess} was sent under, at least: the limit when
   * the round before the current one began (0 in the first round), as a slow
   * start's limit only rises and a request answered in this round was sent
   * since, unless it took two rounds. Its answer comes when the limit may have
   * grown ×2–4 since, so the limit now cannot tell whether it found it used.
   */
  limitWhenSent(): number {
    return this.#lastRoundLimit;
  }

  /** Plain state, times as wall-clock epoch ms (`clocks` pairs the clocks now). */
  snapshot(clocks: ClockReading): SlowStartPaceState {
    return finiteFields({
      startedAt: toWall(this.#startedAt, clocks),
      roundMinRttMs: this.#roundMinRttMs,
      leastRttMs: this.#leastRttMs,
      flat: this.#flat ? 1 : 0,
      roundLimit: this.#roundLimit,
      lastRoundLimit: this.#lastRoundLimit,
    });
  }

  /** Resumes from a {@link SlowStartPace.snapshot} (`saved`, validated here, errors naming `owner`). */
  restore(saved: Readonly<Record<string, unknown>>, owner: string, clocks: ClockReading): void {
    const s = savedNumbers(owner, saved, RULES, FRESH);
    this.#startedAt = fromWall(s.startedAt, clocks);
    this.#roundMinRttMs = s.roundMinRttMs;
    this.#leastRttMs = s.leastRttMs;
    this.#flat = s.flat === 1;
    this.#roundLimit = s.roundLimit;
    this.#lastRoundLimit = s.lastRoundLimit;
  }

  #endRound(at: number, limit: number): void {
    this.#lastRoundLimit = this.#roundLimit;
    this.#roundLimit = limit;
    if (this.#roundMinRttMs < Infinity) {
      this.#flat = this.#roundMinRttMs <= this.#leastRttMs * (1 + RTT_RISE);
    }
    this.#startedAt = at;
    this.#roundMinRttMs = Infinity;
  }
}
