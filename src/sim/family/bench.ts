import { availableParallelism } from 'node:os';
import { Tinypool } from 'tinypool';
import type { Strategy } from '../strategies/strategy.js';
import { type FamilyFigures, familyFigures, RAMP_REFERENCE } from './figures.js';
import type { FamilyRun } from './run.js';
import type { FamilyServer } from './server.js';
import { drawFrom, type ServerSet } from './sets.js';
import runFamilyTask, { type FamilyTask } from './worker.js';

/** Options of {@link runFamilyBench}. */
export interface FamilyBenchOptions {
  /** Servers to sample. */
  count: number;
  /** Seed of the family sample. */
  seed: number;
  /** The set the servers are drawn from. @default 'family' */
  set?: ServerSet;
  /** Strategies to run on every server (the ramp reference runs on ramp servers regardless). */
  strategies: readonly Strategy[];
  /** Timing noise between each strategy and the server, ms (see `SimulateOptions.timingNoiseMs`). @default 0 */
  timingNoiseMs?: number;
  /** ratewise's probing budget (see `ControlOptions.refusedShare`). @default ratewise's default */
  refusedShare?: number;
  /** Worker threads; 1 runs in this thread. @default the machine's parallelism */
  threads?: number;
  /** Told as each server is done. */
  onServer?: (server: FamilyServer, done: number) => void;
}

/** A family bench: the servers drawn, every run, and each strategy's figures. */
export interface FamilyBenchResult {
  readonly seed: number;
  readonly servers: readonly FamilyServer[];
  /** Runs by strategy name, then by server index. */
  readonly runs: ReadonlyMap<string, ReadonlyMap<number, FamilyRun>>;
  readonly figures: readonly FamilyFigures[];
}

/**
 * Samples `count` servers of the family and runs each strategy on each, in
 * virtual time, spread over worker threads; every figure is counted on the
 * server's side (see `measureRun`).
 */
export async function runFamilyBench(options: FamilyBenchOptions): Promise<FamilyBenchResult> {
  const set = options.set ?? 'family';
  const servers = Array.from({ length: options.count }, (_, i) => drawFrom(set, options.seed, i));
  const names = options.strategies.map((strategy) => strategy.name);
  const tasks = servers.map((server) => ({
    set,
    seed: options.seed,
    index: server.index,
    strategies: server.ramp && !names.includes(RAMP_REFERENCE) ? [...names, RAMP_REFERENCE] : names,
    ...(options.timingNoiseMs ? { timingNoiseMs: options.timingNoiseMs } : {}),
    ...(options.refusedShare === undefined ? {} : { refusedShare: options.refusedShare }),
  }));
  const runs = new Map<string, Map<number, FamilyRun>>();
  let done = 0;
  await runTasks(tasks, options.threads ?? availableParallelism(), (task, results) => {
    for (const run of results) {
      const byServer = runs.get(run.strategy) ?? new Map<number, FamilyRun>();
      runs.set(run.strategy, byServer.set(run.index, run));
    }
    options.onServer?.(servers[task.index] as FamilyServer, ++done);
  });
  const reference = runs.get(RAMP_REFERENCE) ?? new Map();
  const figures = names.map((name) =>
    familyFigures(name, servers, runs.get(name) ?? new Map(), reference),
  );
  return { seed: options.seed, servers, runs, figures };
}

async function runTasks(
  tasks: readonly FamilyTask[],
  threads: number,
  onResult: (task: FamilyTask, runs: FamilyRun[]) => void,
): Promise<void> {
  if (threads <= 1) {
    for (const task of tasks) onResult(task, await runFamilyTask(task));
    return;
  }
  const pool = new Tinypool({
    filename: new URL('./worker.js', import.meta.url).href,
    maxThreads: threads,
  });
  try {
    await Promise.all(
      tasks.map(async (task) => onResult(task, (await pool.run(task)) as FamilyRun[])),
    );
  } finally {
    await pool.destroy();
  }
}
