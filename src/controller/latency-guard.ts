import type { AlarmAction } from '../algorithms/sample.js';
import { SortedWindow } from '../detect/sorted-window.js';
import { number } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import { sharedSettings } from '../options.js';

/** Options for {@link LatencyGuard}. */
export interface LatencyGuardOptions {
  /**
   * Alarm when the median of the last `windowSize` latencies exceeds this
   * multiple of the scope's unloaded latency (twice the unloaded latency is
   * the usual sign of soft throttling: docs/control-loop.md).
   * @default 2
   */
  threshold?: number;
  /**
   * Latencies per window: the rolling median is taken over this many.
   * @default 50
   */
  windowSize?: number;
  /**
   * After slowing down, how long to wait before judging whether it helped, ms
   * (and until ten requests sent since have answered, or three in a row
   * normally: a drained queue needs no more): the cost of each
   * experiment where slowing down does not help. A second is enough for a
   * limiter counting over a second to see the lower rate; on a ramp keyed to
   * the request count, 2.5 s of a quarter of the rate cost a 20-30 s batch
   * 4-10 % of its time.
   * @default 1000
   */
  judgeAfterMs?: number;
  /**
   * The median must also exceed the unloaded latency by this much, ms: on a
   * server answering in a millisecond, doubling is noise, not throttling.
   * @default 100
   */
  minExcessMs?: number;
}

const readOptions = defineOptions<LatencyGuardOptions>()('LatencyGuard', {
  threshold: number(2, { min: 1 }),
  windowSize: number(50, { min: 5, integer: true }),
  judgeAfterMs: number(1000, { min: 0 }),
  minExcessMs: number(100, { min: 0 }),
});
/** The alarm clears when the median is back under this share of the threshold. */
const CLEAR = 0.75;
/** Slowing down "helped" when the median request sent after the cut was this much faster than the recent mean at the cut. */
const HELPED = 0.9;
/** Requests sent after a cut needed to judge it. */
const MIN_JUDGED = 10;
/** Requests sent after a cut whose answers, back to normal this many in a row, clear it before {@link MIN_JUDGED}. */
const MIN_CLEARED = 3;
/** Weight of each latency in the recent mean a cut is judged against (about the last five). */
const RECENT_WEIGHT = 0.2;
/** The unloaded latency is the 10th percentile of the window that had the lowest one. */
const FLOOR_QUANTILE = 0.1;
/**
 * After a futile alarm the guard stays quiet this long, doubling with each
 * futile alarm in a row: where latency follows something we do not control
 * (a ramp keyed to the request count), every new normal is soon exceeded
 * again, and each experiment costs a slowed spell (a minute, not 30 s: on
 * the count-keyed ramps of the server family a second alarm 30 s after the
 * first cost the last quarter of a batch 5–8 % of its rate).
 */
const QUIET = { firstMs: 60_000, maxMs: 600_000 } as const;

type GuardSettings = Readonly<Required<LatencyGuardOptions>>;
/** The default options: one object, so every default guard shares one settings record. */
const NO_OPTIONS: LatencyGuardOptions = Object.freeze({});

/** Validates latency-guard options (once per options object), naming the option on error. */
export const guardSettings = sharedSettings(
  (options: LatencyGuardOptions): GuardSettings => Object.freeze(readOptions(options)),
);

/**
 * A cut being judged: when it was made, the recent mean latency then, and the
 * latencies of requests sent since. Created with each cut: a guard that never
 * alarms needs none.
 */
interface JudgedCut {
  readonly cutAt: number;
  readonly meanAtCut: number;
  readonly after: SortedWindow;
  /** How many of the last requests sent since were back under the clearing latency, in a row. */
  clearRun: number;
}

/**
 * Soft-throttling detection for one scope: latency inflating against the
 * scope's own unloaded latency, with no error to say so. The unloaded latency
 * is a low percentile (p10) of the best window seen — like Vegas's base RTT,
 * it is set by the first requests, before a fast start could trip a target's
 * throttling, and a later slowdown cannot pollute it.
 *
 * An alarm asks for a cut; a while later the guard checks whether the cut
 * helped. Latency that follows our rate (a tarpit, an escalating target) falls,
 * and while it is still too high the guard cuts again. Latency that follows
 * something we do not control (a ramp keyed to the cumulative request count, a
 * slow day at the origin) does not fall: then the guard undoes the cut and takes
 * the current latency as the new normal, so alarms never cost throughput where
 * slowing down does not help.
 */
export class LatencyGuard {
  readonly #settings: GuardSettings;
  #window: SortedWindow;
  #floor = Infinity;
  #alarmed = false;
  /** The cut being judged, from the cut until it is judged or the alarm clears. */
  #judging: JudgedCut | undefined;
  /** Mean latency of the last few requests. */
  #recent = 0;
  /** No alarm before this. */
  #quietUntil = -Infinity;
  /** The next quiet spell after a futile alarm, ms. */
  #quietMs: number = QUIET.firstMs;

  constructor(options: LatencyGuardOptions = NO_OPTIONS) {
    this.#settings = guardSettings(options);
    this.#window = new SortedWindow(this.#settings.windowSize);
  }

  /** Median latency over the unloaded latency (0 before both are known). */
  get ratio(): number {
    const median = this.#window.quantile(0.5);
    return median === undefined || this.#floor === Infinity ? 0 : median / this.#floor;
  }

  /**
   * Feeds a successful request, sent at `sentAt` and completed at `at`
   * (monotonic ms); returns what the rate should do.
   */
  observe(sentAt: number, at: number): AlarmAction | undefined {
    const latencyMs = at - sentAt;
    if (!(latencyMs >= 0) || !Number.isFinite(latencyMs)) return undefined;
    const judging = this.#judging;
    if (judging !== undefined && sentAt >= judging.cutAt) {
      judging.after.push(latencyMs);
      judging.clearRun = latencyMs < this.#clearMs() ? judging.clearRun + 1 : 0;
    }
    this.#recent =
      this.#recent === 0 ? latencyMs : this.#recent + (latencyMs - this.#recent) * RECENT_WEIGHT;
    this.#window.push(latencyMs);
    if (!this.#window.full) {
      // Until the first window fills, its fastest requests are the best unloaded estimate.
      this.#floor = Math.min(this.#floor, latencyMs);
      return undefined;
    }
    this.#floor = Math.min(this.#floor, this.#window.quantile(FLOOR_QUANTILE) ?? Infinity);
    const ratio = this.ratio;
    const excess = (this.#window.quantile(0.5) ?? 0) - this.#floor;
    if (
      !this.#alarmed &&
      at >= this.#quietUntil &&
      ratio > this.#settings.threshold &&
      excess >= this.#settings.minExcessMs
    ) {
      this.#alarmed = true;
      return this.#cut(at);
    }
    if (this.#alarmed && ratio < CLEAR * this.#settings.threshold) {
      this.#alarmed = false;
      this.#judging = undefined;
      return 'cleared';
    }
    return this.#alarmed ? this.#judge(at) : undefined;
  }

  /**
   * Some time after a cut, judged on the requests sent since: the last three
   * in a row, or the median of ten or more, fast enough — cleared (the window
   * restarts, so the slow latencies before the cut do not raise the alarm
   * again); faster but still slow — cut again; no faster — slowing down does
   * not help: give up and take this latency as the new normal.
   *
   * Three normal answers in a row end a cut early: a queue the cut drained
   * answers normally from then on, and ten answers at a slowed rate are
   * seconds more of it. The median, not the mean: the first requests sent
   * after a cut may still wait behind a queue built before it, and such
   * stragglers must not read as "still slow".
   */
  #judge(at: number): AlarmAction | undefined {
    const judging = this.#judging;
    if (judging === undefined || at - judging.cutAt < this.#settings.judgeAfterMs) return undefined;
    if (judging.clearRun >= MIN_CLEARED) return this.#clear();
    if (judging.after.sorted.length < MIN_JUDGED) return undefined;
    const after = judging.after.quantile(0.5) ?? Infinity;
    if (after < this.#clearMs()) return this.#clear();
    if (after < HELPED * judging.meanAtCut) return this.#cut(at);
    this.#judging = undefined;
    this.#alarmed = false;
    this.#floor = this.#window.quantile(FLOOR_QUANTILE) ?? this.#floor; // the new normal
    this.#quietUntil = at + this.#quietMs;
    this.#quietMs = Math.min(QUIET.maxMs, this.#quietMs * 2);
    return 'futile';
  }

  /** Slowing down helped: the alarm clears and the window restarts. */
  #clear(): AlarmAction {
    this.#window = new SortedWindow(this.#settings.windowSize);
    this.#alarmed = false;
    this.#judging = undefined;
    this.#quietMs = QUIET.firstMs;
    return 'cleared';
  }

  /** The latency under which the alarm clears, ms. */
  #clearMs(): number {
    return CLEAR * this.#settings.threshold * this.#floor;
  }

  #cut(at: number): AlarmAction {
    const after = new SortedWindow(this.#settings.windowSize);
    this.#judging = { cutAt: at, meanAtCut: this.#recent, after, clearRun: 0 };
    return 'slow-down';
  }
}
