import { InvalidOptionError } from '../errors.js';
import { number } from '../option-rules.js';
import { defineOptions, type OptionsOf } from '../option-spec.js';
import { numberOption } from '../options.js';
import { baselineProblems, type LatencyBaseline } from './baseline-file.js';
import { isDuration, safeRatio } from './numbers.js';
import { type Percentiles, percentiles, quantileSorted, sortedCopy } from './percentiles.js';

const readCaptureOptions = defineOptions('BaselineCapture', {
  /** Requests per window; the baseline is the window with the lowest p95. @default 100 */
  windowSize: number(100, { min: 1, integer: true }),
});

/** Options for {@link BaselineCapture}. */
export interface BaselineCaptureOptions extends OptionsOf<typeof readCaptureOptions> {}

const readCheckOptions = defineOptions<BaselineCheckOptions>()('checkAgainstBaseline', {
  threshold: number(2, { min: 1 }),
  minSamples: number(20, { min: 1, integer: true }),
});

/** A window's percentiles and how many latencies they summarise. */
export interface WindowSummary extends Percentiles {
  /** Latencies in the window. */
  samples: number;
}

/**
 * Captures a {@link LatencyBaseline}: latencies are cut into consecutive
 * windows of `windowSize` requests and the window with the lowest p95 is
 * kept. The fastest window, not the average, because even a polite capture
 * can trip a per-client pacing ramp after a few hundred requests, and later
 * windows would then bake the throttling into the "normal" figure. Capture
 * slowly (one request a second or so) to measure the floor a well-behaved
 * visitor gets. An incomplete last window is used only if no window is complete.
 */
export class BaselineCapture {
  readonly #host: string;
  readonly #windowSize: number;
  #current: number[] = [];
  #best: WindowSummary | undefined;

  /** @param host The host measured; must be a non-empty string. */
  constructor(host: string, options: BaselineCaptureOptions = {}) {
    const { windowSize } = readCaptureOptions(options);
    if (typeof host !== 'string' || host.trim() === '') {
      throw InvalidOptionError.invalid('BaselineCapture', 'host', host, 'a non-empty string');
    }
    this.#host = host;
    this.#windowSize = windowSize;
  }

  /** Adds one latency, ms. Negative, non-finite and absurd values are ignored. */
  add(latencyMs: number): void {
    if (!isDuration(latencyMs)) return;
    this.#current.push(latencyMs);
    if (this.#current.length < this.#windowSize) return;
    const summary = summarise(this.#current);
    if (summary && (!this.#best || summary.p95 < this.#best.p95)) this.#best = summary;
    this.#current = [];
  }

  /** The fastest complete window so far (or the incomplete one if none is complete). */
  get fastest(): WindowSummary | undefined {
    return this.#best ?? summarise(this.#current);
  }

  /**
   * The baseline to store, stamped with `capturedAt` (wall-clock epoch ms, e.g.
   * `clock.wallNow()`); `undefined` before the first latency.
   */
  toBaseline(capturedAt: number): LatencyBaseline | undefined {
    const at = numberOption('BaselineCapture', 'capturedAt', capturedAt, 0, {
      min: -8.64e15,
      max: 8.64e15,
    });
    const fastest = this.fastest;
    if (!fastest) return undefined;
    return { host: this.#host, ...fastest, capturedAt: new Date(at).toISOString() };
  }
}

function summarise(latencies: readonly number[]): WindowSummary | undefined {
  const p = percentiles(latencies);
  return p && { ...p, samples: latencies.length };
}

/** Options for {@link checkAgainstBaseline}. */
export interface BaselineCheckOptions {
  /** Live p95 above this multiple of the baseline p95 is `slow`. @default 2 */
  threshold?: number;
  /** Fewer live latencies than this give `insufficient-data` (a p95 of 5 values is their maximum). @default 20 */
  minSamples?: number;
}

/** The answer of {@link checkAgainstBaseline}. */
export interface BaselineVerdict {
  /** `slow` when live p95 > threshold × baseline p95. */
  verdict: 'ok' | 'slow' | 'insufficient-data';
  /** p95 of the live latencies, ms (0 when there are none). */
  liveP95: number;
  /** The baseline's p95, ms. */
  baselineP95: number;
  /** liveP95 / baselineP95. */
  ratio: number;
  /** Live latencies used. */
  samples: number;
}

/**
 * Compares live latencies (typically the last 100) with a baseline: `slow`
 * when their p95 exceeds `threshold` × the baseline p95. 2× is the default
 * trade-off: 1.5× fires earlier but also on an ordinary busy afternoon.
 * Throws {@link InvalidOptionError} for an invalid baseline or option; bad
 * latencies are ignored.
 */
export function checkAgainstBaseline(
  liveLatenciesMs: readonly number[],
  baseline: LatencyBaseline,
  options: BaselineCheckOptions = {},
): BaselineVerdict {
  const owner = 'checkAgainstBaseline';
  const { threshold, minSamples } = readCheckOptions(options);
  const problems = baselineProblems(baseline);
  if (problems.length > 0) {
    throw InvalidOptionError.invalid(owner, 'baseline', baseline, `valid (${problems.join('; ')})`);
  }
  const live = sortedCopy(liveLatenciesMs.filter(isDuration));
  const liveP95 = quantileSorted(live, 0.95) ?? 0;
  const ratio = safeRatio(liveP95, baseline.p95);
  const verdict =
    live.length < minSamples ? 'insufficient-data' : ratio > threshold ? 'slow' : 'ok';
  return { verdict, liveP95, baselineP95: baseline.p95, ratio, samples: live.length };
}
