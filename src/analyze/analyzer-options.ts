import type { LatencyBaseline } from '../detect/baseline-file.js';
import type { ThroughputDecayOptions } from '../detect/throughput-decay.js';
import { check, given, number } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import type { AlarmReplayOptions } from './alarm-replay.js';

/** Options of `LogAnalyzer`. */
export interface LogAnalyzerOptions {
  /** Window length for rates and percentiles, s (at least {@link MIN_WINDOW_S}). @default 10 */
  windowS?: number;
  /** A captured baseline for the latency alarm and ratios; without one the fastest window of 100 latencies is learned. */
  baseline?: LatencyBaseline;
  /** Options of the replayed throughput-decay detectors. @default the detector's defaults (τ 30 s, alarm at 35 % below peak, warm-up 50 completions and 60 s) */
  decay?: Omit<ThroughputDecayOptions, 'normalise'>;
  /** Latencies (and ramp observations) kept for whole-log statistics; beyond it a uniform sample is used. @default 100000 */
  sampleSize?: number;
}

/** Shortest window `LogAnalyzer` accepts, s. */
export const MIN_WINDOW_S = 0.001;
const readOptions = defineOptions<LogAnalyzerOptions>()('LogAnalyzer', {
  windowS: number(10, { min: MIN_WINDOW_S }),
  baseline: given(),
  decay: check(
    'an object of detector options',
    (value): value is LogAnalyzerOptions['decay'] => typeof value === 'object' && value !== null,
  ),
  sampleSize: number(100_000, { min: 100, integer: true }),
});

/** {@link LogAnalyzerOptions} checked, defaults applied. */
export interface AnalyzerSettings {
  windowS: number;
  sampleSize: number;
  replay: AlarmReplayOptions;
}

/** Validates {@link LogAnalyzerOptions}; errors name the option, the value and what was expected. */
export function readAnalyzerOptions(options: LogAnalyzerOptions): AnalyzerSettings {
  const { windowS, sampleSize, decay, baseline } = readOptions(options);
  const replay: AlarmReplayOptions = {};
  if (decay) replay.decay = decay;
  if (baseline) replay.baseline = baseline;
  return { windowS, sampleSize, replay };
}
