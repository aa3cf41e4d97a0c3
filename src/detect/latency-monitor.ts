import { custom, number } from '../option-rules.js';
import { defineOptions, type OptionsOf } from '../option-spec.js';
import { baselineProblems, type LatencyBaseline } from './baseline-file.js';
import { isDuration, safeRatio } from './numbers.js';
import { type Percentiles, percentilesOfSorted } from './percentiles.js';
import { SortedWindow } from './sorted-window.js';
import type { AlarmTransition } from './transition.js';

const readOptions = defineOptions('LatencyMonitor', {
  /** Latencies in the rolling window whose p95 is watched (also the length of a learning window). @default 100 */
  windowSize: number(100, { min: 1, integer: true }),
  /** Alarm when the rolling p95 exceeds this multiple of the baseline p95. @default 2 */
  threshold: number(2, { min: 1 }),
  /** Clear the alarm when the rolling p95 is back below this multiple (between 1 and `threshold`). @default 1.5 */
  clearThreshold: number(1.5, (earlier) => ({ min: 1, max: earlier.threshold as number })),
  /** A captured baseline. Without one, the fastest window seen so far is learned as the baseline. */
  baseline: custom((value, fail) => {
    if (value === undefined) return undefined;
    const problems = baselineProblems(value as LatencyBaseline);
    if (problems.length > 0) fail(`a valid baseline (${problems.join('; ')})`);
    return value as LatencyBaseline;
  }),
});

/** Options for {@link LatencyMonitor}. */
export interface LatencyMonitorOptions extends OptionsOf<typeof readOptions> {}

/** What {@link LatencyMonitor} currently sees. */
export interface LatencyMonitorState {
  /** p95 of the rolling window, ms (0 before the window is full). */
  p95: number;
  /** The baseline p95 it compares against, ms (0 while none is known). */
  baselineP95: number;
  /** p95 / baselineP95 (0 while either is unknown). */
  ratio: number;
  /** Whether the alarm is raised. */
  alarmed: boolean;
  /** Whether the baseline was learned online rather than given. */
  learned: boolean;
}

/**
 * Live p95 alarm with bounded memory: the last `windowSize` latencies are
 * kept in a sorted ring, and once the ring is full every new latency
 * re-evaluates p95 / baseline p95. The alarm rises above `threshold` and
 * falls below `clearThreshold`, so it does not flap around one line.
 *
 * The baseline is the captured one if given. Otherwise it is learned online:
 * each consecutive (non-overlapping) window of `windowSize` latencies is
 * summarised and the one with the lowest p95 so far becomes the baseline —
 * the same "fastest window" rule as {@link BaselineCapture}. A learned
 * baseline can only get faster, so it never absorbs a slowdown. A baseline p95
 * of 0 carries no scale and is judged as ratio 1.
 */
export class LatencyMonitor {
  readonly #window: SortedWindow;
  readonly #windowSize: number;
  readonly #threshold: number;
  readonly #clearThreshold: number;
  readonly #learned: boolean;
  #baseline: Percentiles | undefined;
  #sinceLearned = 0;
  #state: LatencyMonitorState;

  constructor(options: LatencyMonitorOptions = {}) {
    const { windowSize, threshold, clearThreshold, baseline } = readOptions(options);
    this.#windowSize = windowSize;
    this.#threshold = threshold;
    this.#clearThreshold = clearThreshold;
    this.#baseline = baseline && { p50: baseline.p50, p95: baseline.p95, p99: baseline.p99 };
    this.#learned = baseline === undefined;
    this.#window = new SortedWindow(this.#windowSize);
    this.#state = { p95: 0, baselineP95: 0, ratio: 0, alarmed: false, learned: this.#learned };
  }

  /** The current view (a copy). */
  get state(): LatencyMonitorState {
    return { ...this.#state, baselineP95: this.#baseline?.p95 ?? 0 };
  }

  /** The baseline percentiles in use (captured or learned), if any. */
  get baseline(): Percentiles | undefined {
    return this.#baseline && { ...this.#baseline };
  }

  /** Feeds one latency, ms; returns `alarm` or `clear` on a change. Invalid values are ignored. */
  observe(latencyMs: number): AlarmTransition | undefined {
    if (!isDuration(latencyMs)) return undefined;
    this.#window.push(latencyMs);
    if (this.#learned) this.#learn();
    if (!this.#window.full || !this.#baseline) return undefined;
    const state = this.#state;
    state.p95 = this.#window.quantile(0.95) ?? 0;
    state.ratio = safeRatio(state.p95, this.#baseline.p95, 1);
    if (!state.alarmed && state.ratio > this.#threshold) {
      state.alarmed = true;
      return 'alarm';
    }
    if (state.alarmed && state.ratio < this.#clearThreshold) {
      state.alarmed = false;
      return 'clear';
    }
    return undefined;
  }

  #learn(): void {
    this.#sinceLearned++;
    if (this.#sinceLearned < this.#windowSize) return;
    this.#sinceLearned = 0;
    const window = percentilesOfSorted(this.#window.sorted);
    if (window && (!this.#baseline || window.p95 < this.#baseline.p95)) this.#baseline = window;
  }
}
