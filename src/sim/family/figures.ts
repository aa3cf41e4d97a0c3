import { quantileSorted, sortedCopy } from '../../detect/percentiles.js';
import type { StepTiming } from './measures.js';
import type { FamilyRun } from './run.js';
import { type FamilyServer, hasCapacity, refusalPauses } from './server.js';

/** The 10th, 50th and 90th percentiles of a figure across servers (or events), and how many. */
export interface Spread {
  readonly p10: number;
  readonly p50: number;
  readonly p90: number;
  readonly n: number;
}

/** One strategy's results across a family sample. */
export interface FamilyFigures {
  readonly strategy: string;
  /** Steady-state goodput, share of capacity, over servers with a capacity. */
  readonly goodput: Spread | null;
  /** Steady-state refused share. */
  readonly refused: Spread | null;
  /** Goodput from 30 s to the end, capacity changes included. */
  readonly goodputAll: Spread | null;
  /** Refused share of the whole run. */
  readonly refusedAll: Spread | null;
  /** Goodput over the first 20 s. */
  readonly coldStart: Spread | null;
  /** Seconds to 90 % of a raised capacity, over step-up events, when refusals bring no pause. */
  readonly stepUpCheap: Spread | null;
  /** The same when each refusal brings a pause (Retry-After of a second or more). */
  readonly stepUpPaused: Spread | null;
  /** Seconds until refusals stay under 1 % after a lowered capacity. */
  readonly stepDown: Spread | null;
  /** Goodput on published-quota servers (the share of the quota used). */
  readonly quotaUse: Spread | null;
  /** Quota servers with any refusal in steady state. */
  readonly quotaRefusing: number;
  /** Count-keyed ramps: batch time over a fixed-concurrency client's. */
  readonly countRampBatch: Spread | null;
  /** Count-keyed ramps: last-quarter rate over a fixed-concurrency client's. */
  readonly countRampFinal: Spread | null;
  /** Rate-keyed ramps: batch time over a fixed-concurrency client's. */
  readonly rateRampBatch: Spread | null;
  /** Runs ended because the strategy re-sent without waiting. */
  readonly hotLoops: number;
}

/** The strategy ramp servers are measured against. */
export const RAMP_REFERENCE = 'fixed+jitter';

/**
 * A strategy's figures over `servers`, from its runs (`runs`, any order) and,
 * for ramp servers, the reference strategy's runs (`reference`).
 */
export function familyFigures(
  strategy: string,
  servers: readonly FamilyServer[],
  runs: ReadonlyMap<number, FamilyRun>,
  reference: ReadonlyMap<number, FamilyRun>,
): FamilyFigures {
  const limited = servers.filter(hasCapacity);
  const measured = (list: readonly FamilyServer[]) =>
    list.flatMap((s) => (runs.get(s.index) ? [runs.get(s.index) as FamilyRun] : []));
  const all = measured(limited);
  const steps = (paused: boolean) =>
    measured(limited.filter((s) => refusalPauses(s) === paused)).flatMap(
      (run) => run.measures.stepUps,
    );
  const quota = measured(limited.filter((s) => s.kind === 'quota'));
  const ramp = (kind: string, pick: (run: FamilyRun) => number | null) =>
    spread(
      servers
        .filter((s) => s.kind === kind)
        .map((s) => ratioOf(runs.get(s.index), reference.get(s.index), pick)),
    );
  return {
    strategy,
    goodput: spread(all.map((r) => r.measures.goodput)),
    refused: spread(all.map((r) => r.measures.refused)),
    goodputAll: spread(all.map((r) => r.measures.goodputAll)),
    refusedAll: spread(all.map((r) => r.measures.refusedAll)),
    coldStart: spread(all.map((r) => r.measures.coldStart)),
    stepUpCheap: spread(seconds(steps(false))),
    stepUpPaused: spread(seconds(steps(true))),
    stepDown: spread(seconds(all.flatMap((r) => r.measures.stepDowns))),
    quotaUse: spread(quota.map((r) => r.measures.goodput)),
    quotaRefusing: quota.filter((r) => (r.measures.refused ?? 0) > 0).length,
    countRampBatch: ramp('count-ramp', (r) => r.batchS),
    countRampFinal: ramp('count-ramp', (r) => r.finalQuarterRate),
    rateRampBatch: ramp('rate-ramp', (r) => r.batchS),
    hotLoops: [...runs.values()].filter((r) => r.hotLoopAt !== undefined).length,
  };
}

function seconds(timings: readonly StepTiming[]): number[] {
  return timings.map((t) => t.seconds);
}

function ratioOf(
  run: FamilyRun | undefined,
  reference: FamilyRun | undefined,
  pick: (run: FamilyRun) => number | null,
): number | null {
  const mine = run === undefined ? null : pick(run);
  const theirs = reference === undefined ? null : pick(reference);
  return mine === null || theirs === null || theirs === 0 ? null : mine / theirs;
}

/** Percentiles of the known values (nulls left out); null when there are none. */
export function spread(values: readonly (number | null)[]): Spread | null {
  const known = sortedCopy(values.filter((v): v is number => v !== null));
  if (known.length === 0) return null;
  const at = (q: number) => quantileSorted(known, q) as number;
  return { p10: at(0.1), p50: at(0.5), p90: at(0.9), n: known.length };
}
