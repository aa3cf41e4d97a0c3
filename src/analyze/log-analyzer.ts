import { detectBimodal } from '../detect/bimodal.js';
import { percentiles } from '../detect/percentiles.js';
import { detectRamp, type RampObservation } from '../detect/ramp.js';
import type { ControlEvent } from '../events/event.js';
import { seededRandom } from '../random.js';
import { AlarmReplay } from './alarm-replay.js';
import { type LogAnalyzerOptions, readAnalyzerOptions } from './analyzer-options.js';
import { ControlTotals } from './control-totals.js';
import { diagnose } from './diagnosis.js';
import { HostCounts } from './host-counts.js';
import type { LineCounts, LogAnalysis, LogTotals, MalformedLine } from './log-analysis.js';
import { parseLogLine, requestOfLine } from './parse-line.js';
import { PhaseCollector } from './phase-collector.js';
import { isOk, isOverloaded, isThrottled, type RequestRecord } from './records.js';
import { Reservoir } from './reservoir.js';
import { RunTracker } from './runs.js';
import { LogTimeAxis } from './time-axis.js';
import { WindowAggregator } from './windows.js';

export { type LogAnalyzerOptions, MIN_WINDOW_S } from './analyzer-options.js';

const MAX_EXAMPLES = 5;
/** Windows with fewer latencies are not used for the worst-window latency ratio. */
const MIN_WINDOW_LATENCIES = 20;

/**
 * Streaming log analysis: feed lines with {@link push} (any mix of ratewise
 * events, crawl results and plain `ISO8601 url latency_ms` lines), then call
 * {@link finish}. Memory does not grow with the number of lines: two open
 * windows, sampled latencies and the first and last phase timings. It grows
 * with the log's extent — a row per window with records in it and one per
 * empty run between them (at most `MAX_WINDOW_ROWS`); per-host counters
 * are bounded ({@link HostCounts}), and so is the list of runs. Runs
 * appended to one log follow each other on one wall-clock axis (see
 * {@link LogTimeAxis}). Malformed lines are counted, never thrown; so is a
 * line whose time lies more than a year from the first record's.
 */
export class LogAnalyzer {
  readonly #windowS: number;
  readonly #windows: WindowAggregator;
  readonly #replay: AlarmReplay;
  readonly #capturedBaseline: boolean;
  readonly #control = new ControlTotals();
  readonly #latencies: Reservoir<number>;
  readonly #rampSample: Reservoir<RampObservation>;
  readonly #phases = new PhaseCollector();
  readonly #perHost = new HostCounts();
  readonly #runs = new RunTracker();
  readonly #examples: MalformedLine[] = [];
  readonly #lines: LineCounts = {
    total: 0,
    blank: 0,
    malformed: 0,
    unsent: 0,
    runStarts: 0,
    byFormat: { event: 0, result: 0, plain: 0 },
  };
  readonly #totals = { requests: 0, untimed: 0, ok: 0, throttled: 0, overloaded: 0, failed: 0 };
  readonly #axis = new LogTimeAxis();
  #start = Number.POSITIVE_INFINITY;
  #end = Number.NEGATIVE_INFINITY;
  #firstRejection: number | undefined;

  constructor(options: LogAnalyzerOptions = {}) {
    const settings = readAnalyzerOptions(options);
    this.#windowS = settings.windowS;
    this.#windows = new WindowAggregator(this.#windowS * 1000);
    this.#replay = new AlarmReplay(settings.replay);
    this.#capturedBaseline = options.baseline !== undefined;
    this.#latencies = new Reservoir(settings.sampleSize, seededRandom('latencies'));
    this.#rampSample = new Reservoir(settings.sampleSize, seededRandom('ramp'));
  }

  /**
   * Reads one line of the log.
   * @throws TooManyWindowsError when the log needs more than `MAX_WINDOW_ROWS` rows at this window.
   */
  push(line: string): void {
    const number = ++this.#lines.total;
    const parsed = parseLogLine(line);
    if (parsed.kind === 'blank' || parsed.kind === 'unsent') {
      this.#lines[parsed.kind]++;
      return;
    }
    if (parsed.kind === 'malformed') {
      this.#reject(number, parsed.reason);
      return;
    }
    if (parsed.kind === 'run') {
      this.#lines.runStarts++;
      this.#startRun(parsed.run.id);
      return;
    }
    const placed = this.#axis.place(parsed);
    if (!placed.ok) {
      this.#reject(number, placed.reason);
      return;
    }
    const { at } = placed;
    if (placed.newRun) this.#startRun(null);
    this.#lines.byFormat[parsed.kind]++;
    if (parsed.kind === 'event' && at !== undefined) this.#event(parsed.event, at);
    const request = requestOfLine(parsed);
    if (request) this.#request(at === undefined ? request : { ...request, at });
  }

  /** A run begins (a run-start line, or the events' clock went back): placed and replayed afresh. */
  #startRun(id: string | null): void {
    this.#axis.startRun();
    this.#runs.start(id);
    this.#replay.restart();
  }

  #reject(line: number, reason: string): void {
    this.#lines.malformed++;
    if (this.#examples.length < MAX_EXAMPLES) this.#examples.push({ line, reason });
  }

  #event(event: ControlEvent, at: number): void {
    this.#stretch(at);
    const state = this.#control.apply(event);
    if (state) this.#windows.addControl(at, state);
    if (event.type === 'alarm') {
      this.#replay.controllerAlarm(at, event.reason);
      this.#windows.addAlarm(at);
    }
  }

  #request(request: RequestRecord): void {
    const totals = this.#totals;
    totals.requests++;
    if (isOk(request)) totals.ok++;
    const rejected = isThrottled(request) || isOverloaded(request);
    if (isThrottled(request)) totals.throttled++;
    if (isOverloaded(request)) totals.overloaded++;
    if (request.failed) totals.failed++;
    if (request.latencyMs !== undefined) this.#latencies.add(request.latencyMs);
    if (request.timings) this.#phases.add(request.timings);
    const { at } = request;
    if (at === undefined) {
      totals.untimed++;
      return;
    }
    this.#stretch(at, true);
    if (rejected && this.#firstRejection === undefined) this.#firstRejection = at;
    this.#windows.addRequest(at, request);
    const before = this.#replay.alarms.length;
    this.#replay.observe(at, request.latencyMs, this.#control.current.inflight);
    for (const alarm of this.#replay.alarms.slice(before)) {
      if (alarm.transition === 'alarm') this.#windows.addAlarm(alarm.at);
    }
    this.#observeRamp(at, request);
  }

  #observeRamp(at: number, request: RequestRecord): void {
    if (request.latencyMs === undefined) return;
    const host = request.host ?? '';
    const index = this.#perHost.next(host);
    const currentRate = this.#replay.currentRps;
    this.#rampSample.add({ index, at, latencyMs: request.latencyMs, currentRate });
  }

  #stretch(at: number, request = false): void {
    this.#runs.record(at, request);
    this.#start = Math.min(this.#start, at);
    this.#end = Math.max(this.#end, at);
  }

  /** Closes the analysis and returns it. Call once, after the last line. */
  finish(): LogAnalysis {
    const windows = this.#windows.finish();
    const span = Number.isFinite(this.#start)
      ? { start: this.#start, end: this.#end, durationS: (this.#end - this.#start) / 1000 }
      : null;
    const latencies = this.#latencies.items;
    const p = percentiles(latencies);
    const baselineP95 = this.#replay.baselineP95 ?? null;
    const timed = this.#totals.requests - this.#totals.untimed;
    const runs = this.#runs.summary();
    const totals: LogTotals = {
      ...this.#totals,
      late: this.#windows.late,
      rps: runs.activeS > 0 ? timed / runs.activeS : 0,
      p50: p?.p50 ?? null,
      p95: p?.p95 ?? null,
      p99: p?.p99 ?? null,
      exactPercentiles: this.#latencies.exact,
      baselineP95,
    };
    const alarms = [...this.#replay.alarms];
    const phases = this.#phases.diagnose();
    const ramp = detectRamp(this.#rampSample.items);
    const bimodal = detectBimodal(latencies);
    const worst = windows.reduce(
      (max, w) => (w.requests >= MIN_WINDOW_LATENCIES ? Math.max(max, w.p95 ?? 0) : max),
      0,
    );
    const diagnosis = diagnose({
      requests: this.#totals.requests,
      throttled: totals.throttled,
      overloaded: totals.overloaded,
      ...(this.#firstRejection !== undefined && span
        ? { firstRejectionS: (this.#firstRejection - span.start) / 1000 }
        : {}),
      alarms,
      phases,
      ramp,
      bimodal,
      ...(baselineP95 && worst > 0 ? { worstLatencyRatio: worst / baselineP95 } : {}),
      ...(baselineP95 ? { baseline: this.#capturedBaseline ? 'captured' : 'learned' } : {}),
    });
    return {
      lines: this.#lines,
      malformedExamples: this.#examples,
      span,
      runs,
      totals,
      windowS: this.#windowS,
      windows,
      alarms,
      phases,
      ramp,
      bimodal,
      diagnosis,
    };
  }
}

/** Analyses a whole log given as lines (a convenience over {@link LogAnalyzer}). */
export function analyzeLines(
  lines: Iterable<string>,
  options: LogAnalyzerOptions = {},
): LogAnalysis {
  const analyzer = new LogAnalyzer(options);
  for (const line of lines) analyzer.push(line);
  return analyzer.finish();
}
