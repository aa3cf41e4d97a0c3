import { percentiles } from '../detect/percentiles.js';
import { diagnosePhases } from '../detect/phase-diagnosis.js';
import { TooManyWindowsError } from '../errors.js';
import { seededRandom } from '../random.js';
import type { PhaseTimings } from '../timings.js';
import type { ControlState } from './control-totals.js';
import { isOverloaded, isThrottled, type RequestRecord } from './records.js';
import { Reservoir } from './reservoir.js';
import type { WindowRow } from './window-row.js';

/** Latencies kept per window for its percentiles; beyond it they come from a uniform sample. */
const WINDOW_LATENCY_SAMPLE = 10_000;
/** Timings kept per window for its phase medians. */
const WINDOW_TIMING_SAMPLE = 2_000;
/** Most rows one analysis may produce (about 40 MB of rows); more means the window is too narrow. */
export const MAX_WINDOW_ROWS = 100_000;

class WindowAccumulator {
  readonly latencies: Reservoir<number>;
  readonly timings: Reservoir<PhaseTimings>;
  requests = 0;
  throttled = 0;
  overloaded = 0;
  failed = 0;
  alarms = 0;
  control: ControlState | undefined;
  inflightMax = 0;
  inflightSum = 0;
  queuedMax = 0;
  controlPoints = 0;

  constructor(readonly index: number) {
    this.latencies = new Reservoir(WINDOW_LATENCY_SAMPLE, seededRandom(index));
    this.timings = new Reservoir(WINDOW_TIMING_SAMPLE, seededRandom(-index - 1));
  }
}

/**
 * Cuts a log into consecutive windows of `windowMs` on a grid anchored at
 * the first record, and summarises each ({@link WindowRow}). Streaming:
 * only two windows are open at a time (the newest and the one before, so
 * slightly out-of-order lines still land in the right window — also a
 * record up to one window before the first, whose window then starts
 * before it); older ones are closed into rows. A record for an already
 * closed window is counted in {@link late} and left out of the windows.
 * A run of windows with nothing in them (a stall) is one row with zero
 * requests spanning the whole run, so a gap of any length costs one row.
 * Rows are kept until {@link finish}: at most {@link MAX_WINDOW_ROWS}, beyond
 * which adding throws a {@link TooManyWindowsError}.
 */
export class WindowAggregator {
  readonly #windowMs: number;
  readonly #open = new Map<number, WindowAccumulator>();
  readonly #rows: WindowRow[] = [];
  #origin: number | undefined;
  /** Windows below this index are closed: one before the first record's is still open. */
  #closedBelow = -1;
  /** Index of the last window emitted as a row. */
  #emitted: number | undefined;
  #late = 0;
  #lastAt = Number.NEGATIVE_INFINITY;

  /** @param windowMs Window length, ms (> 0; the caller validates it). */
  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  /** Requests and control points that arrived after their window had closed. */
  get late(): number {
    return this.#late;
  }

  /** Adds a finished request (one with a time). */
  addRequest(at: number, request: RequestRecord): void {
    const w = this.#window(at);
    if (!w) return;
    w.requests++;
    if (request.latencyMs !== undefined) w.latencies.add(request.latencyMs);
    if (request.timings) w.timings.add(request.timings);
    if (isThrottled(request)) w.throttled++;
    if (isOverloaded(request)) w.overloaded++;
    if (request.failed) w.failed++;
  }

  /** Adds the controller's crawl-wide state after an event. */
  addControl(at: number, state: ControlState): void {
    const w = this.#window(at);
    if (!w) return;
    w.control = state;
    w.inflightMax = Math.max(w.inflightMax, state.inflight);
    w.inflightSum += state.inflight;
    w.queuedMax = Math.max(w.queuedMax, state.queued);
    w.controlPoints++;
  }

  /** Counts an alarm raised at `at`. */
  addAlarm(at: number): void {
    const w = this.#window(at, false);
    if (w) w.alarms++;
  }

  /**
   * Closes every window and returns all rows, oldest first. The last window
   * usually ends early: its `durationMs` is cut to the last record, and its
   * rate is taken over that span (at least a second, so a tail of a few
   * milliseconds does not read as a burst).
   */
  finish(): WindowRow[] {
    this.#closeBelow(Number.POSITIVE_INFINITY);
    const last = this.#rows.at(-1);
    const covered = last ? this.#lastAt - last.start : 0;
    if (last && covered < last.durationMs) {
      last.durationMs = Math.max(0, covered);
      last.rps = (1000 * last.requests) / Math.min(this.#windowMs, Math.max(1000, covered));
    }
    return this.#rows;
  }

  #window(at: number, countLate = true): WindowAccumulator | undefined {
    if (!Number.isFinite(at)) return undefined;
    this.#origin ??= at;
    this.#lastAt = Math.max(this.#lastAt, at);
    const index = Math.floor((at - this.#origin) / this.#windowMs);
    if (index < this.#closedBelow) {
      if (countLate) this.#late++;
      return undefined;
    }
    this.#closeBelow(index - 1);
    let w = this.#open.get(index);
    if (!w) {
      w = new WindowAccumulator(index);
      this.#open.set(index, w);
    }
    return w;
  }

  /** Closes open windows with an index below `limit`; a run of empty windows before one is one row. */
  #closeBelow(limit: number): void {
    const closing = [...this.#open.keys()].filter((i) => i < limit).sort((a, b) => a - b);
    for (const index of closing) {
      const next = this.#emitted === undefined ? index : this.#emitted + 1;
      if (next < index) this.#emit(new WindowAccumulator(next), index - next);
      this.#emit(this.#open.get(index) as WindowAccumulator, 1);
      this.#open.delete(index);
      this.#emitted = index;
      this.#closedBelow = index + 1;
    }
  }

  /** Emits `w` as a row spanning `windows` windows (more than one only for an empty run). */
  #emit(w: WindowAccumulator, windows: number): void {
    if (this.#rows.length >= MAX_WINDOW_ROWS)
      throw new TooManyWindowsError(this.#windowMs, MAX_WINDOW_ROWS);
    const previous = this.#rows.at(-1);
    this.#rows.push(
      summarise(w, this.#windowMs * windows, this.#windowMs, this.#origin ?? 0, previous),
    );
  }
}

function summarise(
  w: WindowAccumulator,
  durationMs: number,
  windowMs: number,
  origin: number,
  previous: WindowRow | undefined,
): WindowRow {
  const p = percentiles(w.latencies.items);
  const timings = w.timings.items;
  const seen = w.controlPoints > 0;
  const start = origin + w.index * windowMs;
  return {
    start,
    offsetS: (w.index * windowMs) / 1000,
    durationMs,
    requests: w.requests,
    rps: (1000 * w.requests) / durationMs,
    p50: p?.p50 ?? null,
    p95: p?.p95 ?? null,
    p99: p?.p99 ?? null,
    throttled: w.throttled,
    overloaded: w.overloaded,
    failed: w.failed,
    // A window without events keeps the controller's last known limit and rate.
    limit: w.control?.limit ?? previous?.limit ?? null,
    inflightMax: seen ? w.inflightMax : null,
    inflightMean: seen ? w.inflightSum / w.controlPoints : null,
    queuedMax: seen ? w.queuedMax : null,
    rate: w.control ? w.control.rate : (previous?.rate ?? null),
    phases: timings.length > 0 ? diagnosePhases(timings, { window: timings.length }).medians : null,
    alarms: w.alarms,
  };
}
