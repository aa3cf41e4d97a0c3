import { STRATEGIES, type Strategy, withBudget } from '../strategies/index.js';
import { type FamilyRun, runFamilyServer } from './run.js';
import { drawFrom, type ServerSet } from './sets.js';

/** One server of a family bench: its draw, and the strategies to run on it, by name. */
export interface FamilyTask {
  /** The set the server is drawn from (absent: the family). */
  readonly set?: ServerSet;
  readonly seed: number;
  readonly index: number;
  readonly strategies: readonly string[];
  /** Timing noise between each strategy and the server, ms (0: none). */
  readonly timingNoiseMs?: number;
  /** ratewise's probing budget (see `ControlOptions.refusedShare`); its default when absent. */
  readonly refusedShare?: number;
}

/** Runs every named strategy on one family server (in a worker thread or in process). */
export default async function runFamilyTask(task: FamilyTask): Promise<FamilyRun[]> {
  const server = drawFrom(task.set ?? 'family', task.seed, task.index);
  const runs: FamilyRun[] = [];
  for (const name of task.strategies) {
    const strategy = strategyNamed(name, task.refusedShare);
    const noise = task.timingNoiseMs ? { timingNoiseMs: task.timingNoiseMs } : {};
    runs.push(await runFamilyServer(server, strategy, noise));
  }
  return runs;
}

/** The strategy called `name`; ratewise with the probing budget `refusedShare` when one is given. */
function strategyNamed(name: string, refusedShare: number | undefined): Strategy {
  const strategy = STRATEGIES.find((candidate) => candidate.name === name);
  if (strategy === undefined) throw new Error(`unknown strategy ${name}`);
  return withBudget(strategy, refusedShare);
}
