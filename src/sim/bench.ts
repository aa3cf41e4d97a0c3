import { systemClock } from '../clock.js';
import type { EventSink } from '../events/event.js';
import { runLoopback } from './loopback.js';
import type { Scenario } from './scenarios.js';
import { simulate } from './simulate.js';
import type { Strategy } from './strategies/strategy.js';
import type { RunSummary } from './summary.js';

/** What to run. */
export interface BenchOptions {
  /** Scenarios to run. */
  scenarios: readonly Scenario[];
  /** Strategies to compare in each. */
  strategies: readonly Strategy[];
  /** Seed of every run. */
  seed: number;
  /** Overrides each scenario's run length, ms (loopback runs need one). */
  durationMs?: number;
  /** Run on loopback against a real mock server instead of in virtual time. */
  real: boolean;
  /** Told about each run as it finishes. */
  onRun?: (row: BenchRow) => void;
  /** Receives the control events of each run (e.g. to write a log per run). */
  events?: (scenario: Scenario, strategy: Strategy) => EventSink | undefined;
}

/** One strategy's result in one scenario. */
export interface BenchRow {
  scenario: string;
  strategy: string;
  mode: 'sim' | 'real';
  seed: number;
  /** The run length, s. */
  durationS: number;
  summary: RunSummary;
  /** Wall-clock seconds the run took. */
  wallS: number;
}

/** Loopback runs default to this length (the simulated scenarios run for minutes). */
const DEFAULT_REAL_DURATION_MS = 30_000;

/** Runs every strategy in every scenario, one after another. */
export async function runBench(options: BenchOptions): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const scenario of options.scenarios) {
    for (const strategy of options.strategies) {
      const durationMs =
        options.durationMs ??
        (options.real ? DEFAULT_REAL_DURATION_MS : scenario.workload.durationMs);
      const events = options.events?.(scenario, strategy);
      const started = systemClock.now();
      const common = { seed: options.seed, durationMs, ...(events ? { events } : {}) };
      const { summary } = options.real
        ? await runLoopback(scenario, strategy, common)
        : await simulate(scenario, strategy, common);
      const row: BenchRow = {
        scenario: scenario.name,
        strategy: strategy.name,
        mode: options.real ? 'real' : 'sim',
        seed: options.seed,
        durationS: durationMs / 1000,
        summary,
        wallS: (systemClock.now() - started) / 1000,
      };
      rows.push(row);
      options.onRun?.(row);
    }
  }
  return rows;
}
