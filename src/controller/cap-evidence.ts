import type { Sample } from '../algorithms/sample.js';
import { MIN_REFUSED_INFLIGHT } from './cap-trial.js';
import { CountNoise } from './count-noise.js';
import { InflightTally } from './inflight-tally.js';

/** Congestion events a concurrency cap must explain before it is believed (two let a slow, high-latency rate limit pass for one). */
const EVENTS_TO_BELIEVE = 3;
/**
 * How long "more in flight than any success" looks back, ms (between one and
 * two of these): a long memory, so that a rate limit, whose successes reach
 * high counts now and then as latencies vary, is not taken for a cap at its
 * usual count.
 */
const REMEMBERED_MS = 30_000;
/**
 * Under timing noise, the share of remembered successes that may have been
 * sent at a refusal's count or more while it still counts as above them (and
 * more than this above it breaks the pattern): a success's count includes
 * answers still on their way, most of all when answers come in bunches, so
 * a cap's refusals stand at the top of the counts successes were sent at
 * (within the top 1-3 % in the family), not above every one; a rate limit's
 * come wherever its rate leaves the concurrency. Without noise, none.
 */
const TOP_SHARE = 0.02;

/**
 * Whether a scope's refusals show a concurrency cap: refusals in separate
 * congestion events, each sent at more in flight than any recent success,
 * none at fewer, and no success since at more in flight than the fewest
 * refused. A rate limit refuses at whatever concurrency its rate brings and
 * soon breaks the pattern; a cap keeps it, even while the rate probes (which
 * raises both) or before any pacing (a slow start raises both too). Equal
 * counts say nothing either way: a success's count can include requests the
 * server had already finished, whose responses were still on their way. A
 * cap of one is shown the same way, by refusals at two in flight: one such
 * refusal cannot tell it from a rate of about one request per round trip,
 * but a rate limit soon accepts two in flight once its rate is cut. Under
 * timing noise counts are compared with the slack the refusals show (see
 * {@link CountNoise}): a success's count includes answers still on their way,
 * and a refusal may have met requests sent after it; and a refusal is above
 * the successes when at most {@link TOP_SHARE} of them reached its count.
 */
export class CapEvidence {
  /** The most in flight a success was sent at in the current and the previous span of memory. */
  #accepted = { since: Number.NEGATIVE_INFINITY, current: 0, previous: 0 };
  /** The counts successes were sent at over the same spans. */
  readonly #tally = new InflightTally();
  #events = 0;
  /** The fewest in flight a refusal counted here met: sent at, or under timing noise as it came back (see {@link CountNoise.refusedCount}). */
  #refusedInflight = Infinity;
  /** How far a count may be off under timing noise, from the latest refusal (see {@link CountNoise.slack}); 0 without noise. */
  #slack = 0;
  /** When the last counted refusal arrived. */
  #lastAt = -Infinity;
  /** The latest success's round trip, ms. */
  #rttMs = 0;
  readonly #noise = new CountNoise();

  /** Whether the refusals so far show a concurrency cap. */
  get shown(): boolean {
    return this.#events >= EVENTS_TO_BELIEVE;
  }

  /** Whether a refusal sent at `inflight` is the shown cap's: at least as many as it refused before. */
  explains(inflight: number): boolean {
    return this.shown && inflight + this.#slack >= this.#refusedInflight;
  }

  /**
   * A success sent at `inflight`, arrived at `at` after `rttMs`: past a
   * refused level, the pattern is broken.
   */
  onAccepted(inflight: number, at: number, rttMs = 0): void {
    this.#rttMs = rttMs;
    this.#noise.onAccepted(rttMs);
    const accepted = this.#accepted;
    if (at - accepted.since >= REMEMBERED_MS) {
      const keep = at - accepted.since < 2 * REMEMBERED_MS;
      accepted.previous = keep ? accepted.current : 0;
      accepted.current = 0;
      accepted.since = at;
      this.#tally.roll(keep);
    }
    accepted.current = Math.max(accepted.current, inflight);
    this.#tally.add(inflight);
    if (inflight > this.#refusedInflight + this.#slack) this.#forget();
  }

  /** A refusal. */
  onRefused(sample: Sample): void {
    const accepted = Math.max(this.#accepted.current, this.#accepted.previous);
    if (accepted === 0) return;
    this.#slack = this.#noise.slack(sample);
    const count = this.#noise.refusedCount(sample) + this.#slack;
    // Without noise none may be: a success past the count breaks the pattern, one at it says nothing.
    const top = this.#topShare(sample, count);
    if (this.#tally.shareFrom(count + 1) > top) this.#forget();
    if (this.#tally.shareFrom(count) > top) return;
    this.#refusedInflight = Math.min(this.#refusedInflight, count - this.#slack);
    // A new event once the successes sent around the last one could have answered:
    // on second-long pages, refusals a few hundred ms apart are one round trip's.
    if (sample.sentAt > this.#lastAt + this.#rttMs) this.#events++;
    this.#lastAt = Math.max(this.#lastAt, sample.at);
  }

  /**
   * The share of successes a refusal counted `count` may stand under (see
   * {@link TOP_SHARE}): none without noise, nor at fewer in flight than a
   * single refusal shows a cap at (a slow rate limit at one or two in flight
   * refuses at its rare second request).
   */
  #topShare(sample: Sample, count: number): number {
    const noisy = this.#noise.noiseMs(sample) > 0;
    return noisy && count - this.#slack >= MIN_REFUSED_INFLIGHT ? TOP_SHARE : 0;
  }

  #forget(): void {
    this.#events = 0;
    this.#refusedInflight = Infinity;
    this.#lastAt = -Infinity;
  }
}
