import type { LatencyBaseline } from '../detect/baseline-file.js';
import { LatencyMonitor } from '../detect/latency-monitor.js';
import { type SelfCheckResult, selfCheck } from '../detect/self-check.js';
import {
  ThroughputDecayDetector,
  type ThroughputDecayOptions,
} from '../detect/throughput-decay.js';
import type { AlarmTransition } from '../detect/transition.js';

/** Which detector raised an alarm. */
export type AlarmSource =
  /** Raw completions per second fell below the peak (the throughput-decay detector, replayed on the log). */
  | 'throughput'
  /** Completions per second per request in flight fell: each request takes longer. */
  | 'per-request'
  /** The rolling p95 rose above the baseline (captured, or the fastest window of the log). */
  | 'latency'
  /** The controller's own `alarm` event, as logged. */
  | 'controller';

/** One raise or clear of an alarm, with what the detector saw. */
export interface AlarmRecord {
  /** When, ms on the log's axis. */
  at: number;
  source: AlarmSource;
  transition: AlarmTransition;
  /** The figures behind it, in words. */
  detail: string;
  /**
   * For a raised `throughput` alarm: {@link selfCheck}'s verdict from the
   * fall and the latency ratio at that moment — `look-inward` when latency
   * held (we sent less), `target-side` when it rose too.
   */
  side?: SelfCheckResult['verdict'];
}

/** Options of {@link AlarmReplay}. */
export interface AlarmReplayOptions {
  /** Options of both throughput-decay detectors (`normalise` is set per detector). @default the detector's defaults */
  decay?: Omit<ThroughputDecayOptions, 'normalise'>;
  /** A captured baseline for the latency alarm; without one the log's fastest window is learned. */
  baseline?: LatencyBaseline;
}

/** Longest stretch without completions that is ticked through second by second (a day). */
const MAX_TICKS = 86_400;

/**
 * Replays a log through the soft-throttling detectors of `src/detect`, as
 * the controller would have run them live: a raw throughput-decay detector
 * (a plain log's view), a per-request one (demand-normalised, needs
 * latencies) and a rolling-p95 latency monitor. Stretches without
 * completions are ticked once a second so a stall raises its alarm when it
 * happens, not when traffic resumes.
 */
export class AlarmReplay {
  readonly #decay: AlarmReplayOptions['decay'];
  #raw: ThroughputDecayDetector;
  #perRequest: ThroughputDecayDetector;
  readonly #latency: LatencyMonitor;
  readonly #alarms: AlarmRecord[] = [];
  #lastTick = Number.NEGATIVE_INFINITY;

  constructor(options: AlarmReplayOptions = {}) {
    this.#decay = options.decay;
    this.#raw = new ThroughputDecayDetector({ ...options.decay, normalise: 'none' });
    this.#perRequest = new ThroughputDecayDetector({ ...options.decay, normalise: 'per-inflight' });
    this.#latency = new LatencyMonitor(options.baseline ? { baseline: options.baseline } : {});
  }

  /**
   * A new run of the log begins: the throughput detectors start afresh, so
   * the gap since the last run is not read as a stall and the new run is
   * not judged against the old one's peak. The latency baseline is kept.
   */
  restart(): void {
    this.#raw = new ThroughputDecayDetector({ ...this.#decay, normalise: 'none' });
    this.#perRequest = new ThroughputDecayDetector({ ...this.#decay, normalise: 'per-inflight' });
    this.#lastTick = Number.NEGATIVE_INFINITY;
  }

  /** Alarms so far, in order. */
  get alarms(): readonly AlarmRecord[] {
    return this.#alarms;
  }

  /** The raw detector's current completions per second (exponentially weighted). */
  get currentRps(): number {
    return this.#raw.state.throughputRps;
  }

  /** The latency monitor's current rolling p95 / baseline p95 (`undefined` until it knows both). */
  get latencyRatio(): number | undefined {
    const { ratio } = this.#latency.state;
    return ratio > 0 ? ratio : undefined;
  }

  /** The latency monitor's baseline p95, ms (captured or learned), if any. */
  get baselineP95(): number | undefined {
    return this.#latency.baseline?.p95;
  }

  /** Feeds a finished request; `inflight` is the crawl's in-flight count when known. */
  observe(at: number, latencyMs: number | undefined, inflight: number): void {
    this.#tickUntil(at, inflight);
    this.#record(at, 'throughput', this.#raw.observe({ at }));
    if (latencyMs === undefined) return;
    this.#record(at, 'per-request', this.#perRequest.observe({ at, sentAt: at - latencyMs }));
    this.#record(at, 'latency', this.#latency.observe(latencyMs));
  }

  /** Records an alarm the controller itself logged. */
  controllerAlarm(at: number, reason: string): void {
    const transition = /clear|recover/i.test(reason) ? 'clear' : 'alarm';
    this.#alarms.push({ at, source: 'controller', transition, detail: reason || 'alarm event' });
  }

  #tickUntil(at: number, inflight: number): void {
    if (!(at > this.#lastTick + 1000)) {
      this.#lastTick = Math.max(this.#lastTick, at);
      return;
    }
    const first = Number.isFinite(this.#lastTick) ? this.#lastTick + 1000 : at;
    const ticks = Math.min(MAX_TICKS, Math.floor((at - first) / 1000));
    for (let i = 0; i < ticks; i++) {
      const t = first + i * 1000;
      this.#record(t, 'throughput', this.#raw.tick(t));
      this.#record(t, 'per-request', this.#perRequest.tick(t, inflight));
    }
    this.#lastTick = at;
  }

  #record(at: number, source: AlarmSource, transition: AlarmTransition | undefined): void {
    if (!transition) return;
    const record: AlarmRecord = { at, source, transition, detail: this.#detail(source) };
    if (source === 'throughput' && transition === 'alarm') {
      const ratio = this.latencyRatio;
      const measurements = { throughputDrop: this.#raw.state.drop };
      record.side = selfCheck(
        ratio === undefined ? measurements : { ...measurements, latencyRatio: ratio },
      ).verdict;
    }
    this.#alarms.push(record);
  }

  #detail(source: AlarmSource): string {
    if (source === 'latency') {
      const s = this.#latency.state;
      return `rolling p95 ${Math.round(s.p95)} ms = ${s.ratio.toFixed(2)}× baseline ${Math.round(s.baselineP95)} ms`;
    }
    const s = (source === 'throughput' ? this.#raw : this.#perRequest).state;
    const watched = source === 'throughput' ? s.throughputRps : s.perInflightRps;
    const unit = source === 'throughput' ? 'req/s' : 'req/s per request in flight';
    const ratio = this.latencyRatio;
    const latency = ratio === undefined ? '' : `; p95 ${ratio.toFixed(2)}× baseline`;
    return `${watched.toFixed(2)} ${unit}, ${Math.round(100 * s.drop)} % below peak ${s.peak.toFixed(2)}${latency}`;
  }
}
