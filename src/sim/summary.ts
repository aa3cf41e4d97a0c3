import { percentiles } from '../detect/percentiles.js';
import type { ExchangeLog } from './exchange-log.js';
import { NO_RESPONSE } from './exchange-log.js';

/** What one strategy achieved in one scenario. Times in ms since the run began. */
export interface RunMeasures {
  /** The exchange log of the run. */
  log: ExchangeLog;
  /** The model's nominal capacity at a time, req/s (undefined: unbounded). */
  capacity: (at: number) => number | undefined;
  /** Steady state starts here. */
  steadyFromMs: number;
  /** When the run stopped handing out work. */
  endMs: number;
  /** The concurrency ceiling of the scenario. */
  maxConcurrency: number;
  /** When a batch completed, if it did. */
  batchDoneMs: number | undefined;
  /** Whether the scenario was a batch of URLs. */
  batch: boolean;
}

/** The figures `ratewise bench` reports for one run. */
export interface RunSummary {
  /** Exchanges (retries included). */
  requests: number;
  /** 2xx responses. */
  ok: number;
  /** 429 and 503 responses. */
  rejected: number;
  /** Requests with no response (timeouts, resets). */
  noResponse: number;
  /**
   * Requests sent in the steady state. With none (a breaker open through it),
   * the figures over them are not measured: `null`, not 0.
   */
  steadyRequests: number;
  /** Steady-state goodput, ok/s (0 when nothing succeeded in it, sent or not). */
  okPerS: number;
  /** Mean nominal capacity over the steady state, req/s; null when unbounded. */
  capacityPerS: number | null;
  /** okPerS / capacityPerS; null when unbounded. */
  capacityShare: number | null;
  /** Share of steady-state requests rejected (429/503) or unanswered; null when none was sent. */
  rejectedShare: number | null;
  /** Latency percentiles over the steady state, ms; null when no request was sent in it. */
  p50Ms: number | null;
  /** 95th percentile latency, ms; null when no request was sent in it. */
  p95Ms: number | null;
  /** Longest single request, ms. */
  maxMs: number;
  /** Start of the first 5 s window at 90 % of capacity after which goodput averages 90 %, s; null if none. */
  convergeS: number | null;
  /**
   * Coefficient of variation of ok per second over the steady state (0: flat);
   * null when it has no ok, or is shorter than two seconds.
   */
  oscillation: number | null;
  /** First time the ceiling was in flight, s; null if never. */
  timeToMaxS: number | null;
  /** Batch completion time, s; null for timed runs or an unfinished batch. */
  batchS: number | null;
  /** ok/s over the last quarter of a batch's successes; null for timed runs. */
  finalQuarterRate: number | null;
}

const WINDOW_MS = 5000;

/** Computes a run's figures from its exchange log. */
export function summarise(measures: RunMeasures): RunSummary {
  const { log, steadyFromMs } = measures;
  const steadyEnd = measures.batch ? (measures.batchDoneMs ?? lastDone(log)) : measures.endMs;
  const steadyS = Math.max(1e-9, (steadyEnd - steadyFromMs) / 1000);
  const steady = indexesWhere(
    log,
    (i) => (log.sentAt[i] as number) >= steadyFromMs && (log.sentAt[i] as number) < steadyEnd,
  );
  const okSteady = countWhere(
    log,
    (i) =>
      isOk(log, i) &&
      (log.doneAt[i] as number) >= steadyFromMs &&
      (log.doneAt[i] as number) < steadyEnd,
  );
  const capacityPerS = meanCapacity(measures.capacity, steadyFromMs, steadyEnd);
  const okPerS = okSteady / steadyS;
  const latencies = steady.map((i) => (log.doneAt[i] as number) - (log.sentAt[i] as number));
  const p = percentiles(latencies);
  return {
    requests: log.size,
    ok: countWhere(log, (i) => isOk(log, i)),
    rejected: countWhere(log, (i) => isRejected(log.status[i] as number)),
    noResponse: countWhere(log, (i) => log.status[i] === NO_RESPONSE),
    steadyRequests: steady.length,
    okPerS,
    capacityPerS,
    capacityShare: capacityPerS === null ? null : okPerS / capacityPerS,
    rejectedShare: refusedShare(log, steady),
    p50Ms: p?.p50 ?? null,
    p95Ms: p?.p95 ?? null,
    maxMs: largest(log.size, (i) => (log.doneAt[i] as number) - (log.sentAt[i] as number)),
    convergeS: convergence(measures),
    oscillation: oscillation(log, steadyFromMs, steadyEnd),
    timeToMaxS: timeToCeiling(log, measures.maxConcurrency),
    batchS:
      measures.batch && measures.batchDoneMs !== undefined ? measures.batchDoneMs / 1000 : null,
    finalQuarterRate: measures.batch ? finalQuarterRate(log) : null,
  };
}

function isOk(log: ExchangeLog, i: number): boolean {
  const status = log.status[i] as number;
  return status >= 200 && status < 300;
}

function isRejected(status: number): boolean {
  return status === 429 || status === 503;
}

/** The share of the `sent` requests rejected (429/503) or unanswered; null when there are none. */
function refusedShare(log: ExchangeLog, sent: readonly number[]): number | null {
  if (sent.length === 0) return null;
  const refused = sent.filter(
    (i) => isRejected(log.status[i] as number) || log.status[i] === NO_RESPONSE,
  );
  return refused.length / sent.length;
}

function indexesWhere(log: ExchangeLog, keep: (i: number) => boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < log.size; i++) if (keep(i)) out.push(i);
  return out;
}

function countWhere(log: ExchangeLog, keep: (i: number) => boolean): number {
  let n = 0;
  for (let i = 0; i < log.size; i++) if (keep(i)) n++;
  return n;
}

function lastDone(log: ExchangeLog): number {
  return largest(log.size, (i) => log.doneAt[i] as number);
}

/** The largest of `count` values (0 when none), without spreading huge arrays onto the stack. */
function largest(count: number, value: (i: number) => number): number {
  let max = 0;
  for (let i = 0; i < count; i++) max = Math.max(max, value(i));
  return max;
}

function meanCapacity(capacity: RunMeasures['capacity'], from: number, to: number): number | null {
  let sum = 0;
  let n = 0;
  for (let t = from; t < to; t += 100) {
    const c = capacity(t);
    if (c === undefined) return null;
    sum += c;
    n++;
  }
  return n === 0 ? null : sum / n;
}

/** ok counts per window of `width` ms over [from, to). */
function okPerWindow(log: ExchangeLog, from: number, to: number, width: number): number[] {
  const counts = new Array<number>(Math.max(0, Math.floor((to - from) / width))).fill(0);
  for (let i = 0; i < log.size; i++) {
    if (!isOk(log, i)) continue;
    const k = Math.floor(((log.doneAt[i] as number) - from) / width);
    if (k >= 0 && k < counts.length) counts[k] = (counts[k] as number) + 1;
  }
  return counts;
}

/**
 * The first 5 s window reaching 90 % of capacity from which the goodput
 * stays there on average (single probe dips allowed), in s; null if none.
 */
function convergence(measures: RunMeasures): number | null {
  if (measures.batch) return null;
  const counts = okPerWindow(measures.log, 0, measures.endMs, WINDOW_MS);
  const ratios: number[] = [];
  for (const [k, count] of counts.entries()) {
    const capacity = meanCapacity(measures.capacity, k * WINDOW_MS, (k + 1) * WINDOW_MS);
    if (capacity === null) return null;
    ratios.push(count / (WINDOW_MS / 1000) / capacity);
  }
  let tail = 0;
  let converged: number | null = null;
  for (let k = ratios.length - 1; k >= 0; k--) {
    tail += ratios[k] as number;
    if ((ratios[k] as number) >= 0.9 && tail / (ratios.length - k) >= 0.9)
      converged = (k * WINDOW_MS) / 1000;
  }
  return converged;
}

function oscillation(log: ExchangeLog, from: number, to: number): number | null {
  const counts = okPerWindow(log, from, to, 1000);
  if (counts.length < 2) return null;
  const mean = counts.reduce((s, c) => s + c, 0) / counts.length;
  if (mean === 0) return null;
  const variance = counts.reduce((s, c) => s + (c - mean) ** 2, 0) / counts.length;
  return Math.sqrt(variance) / mean;
}

function timeToCeiling(log: ExchangeLog, ceiling: number): number | null {
  const changes: [number, number][] = [];
  for (let i = 0; i < log.size; i++) {
    changes.push([log.sentAt[i] as number, 1], [log.doneAt[i] as number, -1]);
  }
  changes.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let inflight = 0;
  for (const [at, delta] of changes) {
    inflight += delta;
    if (inflight >= ceiling) return at / 1000;
  }
  return null;
}

function finalQuarterRate(log: ExchangeLog): number | null {
  const done = indexesWhere(log, (i) => isOk(log, i)).map((i) => log.doneAt[i] as number);
  if (done.length < 8) return null;
  done.sort((a, b) => a - b);
  const start = done[Math.floor(done.length * 0.75) - 1] as number;
  const end = done[done.length - 1] as number;
  return end > start
    ? (done.length - Math.floor(done.length * 0.75)) / ((end - start) / 1000)
    : null;
}
