import { ALIGNED_FROM_MS } from './build.js';
import { type CapacitySpan, capacityBetween, capacitySpans } from './capacity.js';
import { Outcome, type ServerRecord } from './family-model.js';
import type { FamilyServer, LimitKind } from './server.js';

/** The cold start: the first this many ms of a run. */
export const COLD_START_MS = 20_000;
/** After a start or a capacity change, steady state resumes this much later. */
export const SETTLE_MS = 30_000;
/** Capacity moves by at least this factor for a change to count as a step. */
const STEP = 1.25;
/** A raised capacity is reached at this share of it. */
const REACHED = 0.9;
/** Refusals are back under control below this share. */
const CALM = 0.01;
/** Refusals are judged over windows of this length after a step down, ms. */
const CALM_WINDOW_MS = 5000;
/** Scan resolution of the step timings, ms. */
const SCAN_MS = 100;
/** A step is judged only when its new capacity holds this long (steps closer than this are a blur). */
const JUDGED_STEP_MS = 30_000;

/** How long a capacity step took to be followed, s (`Infinity`: not before the next change). */
export interface StepTiming {
  /** When the capacity changed, ms. */
  readonly atMs: number;
  /** Capacity before and after, requests/s. */
  readonly from: number;
  readonly to: number;
  readonly seconds: number;
}

/** One run on one family server, counted on the server's side. */
export interface ServerMeasures {
  /** Requests that reached the server, and those it served. */
  readonly requests: number;
  readonly ok: number;
  /** Served over the capacity of the first 20 s. */
  readonly coldStart: number | null;
  /** Served over capacity in steady state (30 s clear of the start and of every change). */
  readonly goodput: number | null;
  /** Refused share of steady-state arrivals (unrelated errors left out). */
  readonly refused: number | null;
  /** Served over capacity from 30 s to the end, changes included. */
  readonly goodputAll: number | null;
  /** Refused share of every arrival of the run. */
  readonly refusedAll: number;
  /**
   * Time to 90 % of each raised capacity: from the change to the start of the
   * first window (1 s, or 5 requests' worth at the new capacity) served at it.
   */
  readonly stepUps: readonly StepTiming[];
  /** Time until refusals stay under 1 % (over 5 s) after each lowered capacity. */
  readonly stepDowns: readonly StepTiming[];
}

/** Counts a run's figures from the server's record; `endMs` is when the run stopped sending. */
export function measureRun(
  server: FamilyServer,
  record: ServerRecord,
  endMs: number,
): ServerMeasures {
  const served = timesOf(record, (o) => o === Outcome.ok);
  const refusedAt = timesOf(record, (o) => o === Outcome.refused);
  const judged = timesOf(record, (o) => o !== Outcome.noise);
  const spans = capacitySpans(server);
  const refusedShare = (ranges: readonly [number, number][]) =>
    ratio(sumIn(refusedAt, ranges), sumIn(judged, ranges));
  const whole = wholeWindows(server);
  const steady = spans === undefined ? [] : whole(settled(spans, endMs));
  const share = (ranges: readonly [number, number][]) =>
    spans === undefined
      ? null
      : ratio(
          sumIn(served, ranges),
          ranges.reduce((sum, [from, to]) => sum + capacityBetween(spans, from, to), 0),
        );
  return {
    requests: record.at.length,
    ok: served.length,
    coldStart: share(whole([[0, Math.min(COLD_START_MS, endMs)]], true)),
    goodput: steady.length === 0 ? null : share(steady),
    refused: steady.length === 0 ? null : refusedShare(steady),
    goodputAll: endMs > SETTLE_MS ? share([[SETTLE_MS, endMs]]) : null,
    refusedAll: ratio(refusedAt.length, judged.length) ?? 0,
    stepUps: spans === undefined ? [] : stepUps(spans, served, endMs),
    stepDowns: spans === undefined ? [] : stepDowns(spans, refusedAt, judged, endMs),
  };
}

/** Limits that grant per window (or per fill) rather than at a smooth rate. */
const WINDOWED: ReadonlySet<LimitKind> = new Set<LimitKind>([
  'fixed-window',
  'sliding-log',
  'quota',
  'sliding-counter',
  'penalty-box',
  'lumpy-bucket',
]);

/**
 * Ranges cut to whole windows of a long-window limit (10 s and more): such a
 * limit grants its windows' worth, not a smooth rate, so a range cutting a
 * window in two would count a burst or a wait against the capacity. With
 * `extend`, a range is widened to whole windows instead (the cold start).
 */
function wholeWindows(server: FamilyServer) {
  const w = server.windowMs;
  if (!WINDOWED.has(server.kind) || w < ALIGNED_FROM_MS) {
    return (ranges: [number, number][]) => ranges;
  }
  const phase = server.field?.phaseMs ?? 0;
  const snap = (t: number, round: (x: number) => number) => phase + round((t - phase) / w) * w;
  return (ranges: [number, number][], extend = false): [number, number][] =>
    ranges.flatMap(([from, to]) => {
      const snapped: [number, number] = extend
        ? [snap(from, Math.floor), snap(to, Math.ceil)]
        : [snap(from, Math.ceil), snap(to, Math.floor)];
      return snapped[1] > snapped[0] ? [snapped] : [];
    });
}

/** Steady-state ranges: from 30 s to the end, leaving out 30 s after each change. */
function settled(spans: readonly CapacitySpan[], endMs: number): [number, number][] {
  const ranges: [number, number][] = [];
  for (const span of spans) {
    const from = Math.max(span.fromMs + SETTLE_MS, SETTLE_MS);
    const to = Math.min(span.toMs, endMs);
    if (to > from) ranges.push([from, to]);
  }
  return ranges;
}

function stepUps(spans: readonly CapacitySpan[], served: number[], endMs: number): StepTiming[] {
  const timings: StepTiming[] = [];
  for (const [before, after] of changes(spans, endMs)) {
    if (after.perS < STEP * before.perS) continue;
    const windowMs = Math.max(1000, 5000 / after.perS);
    const needed = (REACHED * after.perS * windowMs) / 1000;
    const end = Math.min(after.toMs, endMs);
    let seconds = Infinity;
    for (let t = after.fromMs + windowMs; t <= end; t += SCAN_MS) {
      if (countIn(served, t - windowMs, t) >= needed) {
        seconds = (t - windowMs - after.fromMs) / 1000;
        break;
      }
    }
    timings.push({ atMs: after.fromMs, from: before.perS, to: after.perS, seconds });
  }
  return timings;
}

function stepDowns(
  spans: readonly CapacitySpan[],
  refusedAt: number[],
  judged: number[],
  endMs: number,
): StepTiming[] {
  const timings: StepTiming[] = [];
  for (const [before, after] of changes(spans, endMs)) {
    if (after.perS * STEP > before.perS) continue;
    const end = Math.min(after.toMs, endMs) - CALM_WINDOW_MS;
    let seconds = Infinity;
    for (let t = after.fromMs; t <= end; t += SCAN_MS) {
      const window: [number, number] = [t, t + CALM_WINDOW_MS];
      if (countIn(refusedAt, ...window) <= CALM * countIn(judged, ...window)) {
        seconds = (t - after.fromMs) / 1000;
        break;
      }
    }
    timings.push({ atMs: after.fromMs, from: before.perS, to: after.perS, seconds });
  }
  return timings;
}

/** Consecutive span pairs whose second span lasts 30 s within the run (long enough to judge). */
function changes(spans: readonly CapacitySpan[], endMs: number): [CapacitySpan, CapacitySpan][] {
  const pairs: [CapacitySpan, CapacitySpan][] = [];
  for (let i = 1; i < spans.length; i++) {
    const after = spans[i] as CapacitySpan;
    if (Math.min(after.toMs, endMs) - after.fromMs >= JUDGED_STEP_MS) {
      pairs.push([spans[i - 1] as CapacitySpan, after]);
    }
  }
  return pairs;
}

/** Arrival times (ascending) of the outcomes `keep` accepts. */
function timesOf(record: ServerRecord, keep: (outcome: number) => boolean): number[] {
  const times: number[] = [];
  for (let i = 0; i < record.at.length; i++) {
    if (keep(record.outcome[i] as number)) times.push(record.at[i] as number);
  }
  return times.sort((a, b) => a - b);
}

function sumIn(sorted: readonly number[], ranges: readonly [number, number][]): number {
  return ranges.reduce((sum, [from, to]) => sum + countIn(sorted, from, to), 0);
}

/** How many of the ascending `sorted` times fall in [from, to). */
export function countIn(sorted: readonly number[], from: number, to: number): number {
  return lowerBound(sorted, to) - lowerBound(sorted, from);
}

function lowerBound(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((sorted[mid] as number) < value) low = mid + 1;
    else high = mid;
  }
  return low;
}

function ratio(part: number, whole: number): number | null {
  return whole > 0 ? part / whole : null;
}
