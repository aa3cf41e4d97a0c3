import type { EventSink } from '../events/event.js';
import { seededRandom } from '../random.js';
import { VirtualClock } from '../virtual-clock.js';
import { ExchangeLog } from './exchange-log.js';
import { ModelTransport } from './model-transport.js';
import { createModel } from './models/catalog.js';
import { scenarioSummary, strategyContext } from './run-parts.js';
import type { Scenario } from './scenarios.js';
import type { Strategy } from './strategies/strategy.js';
import type { RunSummary } from './summary.js';
import { WorkQueue } from './work.js';

/** Options for {@link simulate}. */
export interface SimulateOptions {
  /** Seed for the server's jitter and the strategy's randomness. @default 1 */
  seed?: number;
  /** Overrides the scenario's run length, ms. */
  durationMs?: number;
  /** Receives the strategy's control events (ratewise's time series). */
  events?: EventSink;
}

/** A finished run: its summary and its raw exchange log. */
export interface RunResult {
  /** The figures of the run. */
  summary: RunSummary;
  /** Every exchange. */
  log: ExchangeLog;
}

/**
 * Runs `strategy` against the scenario's server model in virtual time: the
 * real controller code, a model instead of a network, no waiting. The same
 * seed gives the same result, byte for byte.
 */
export async function simulate(
  scenario: Scenario,
  strategy: Strategy,
  options: SimulateOptions = {},
): Promise<RunResult> {
  const seed = options.seed ?? 1;
  const clock = new VirtualClock({ start: 0 });
  const model = createModel(scenario.model, scenario.params, seededRandom(`server:${seed}`));
  const log = new ExchangeLog();
  const transport = log.wrap(
    new ModelTransport(model, clock, { timeoutMs: scenario.timeoutMs }),
    clock,
    0,
  );
  const workload = {
    ...scenario.workload,
    ...(options.durationMs ? { durationMs: options.durationMs } : {}),
  };
  const work = new WorkQueue(workload, clock);
  const context = strategyContext(scenario, strategy, seed, {
    transport,
    clock,
    work,
    workload,
    events: options.events,
  });
  // Settle the run into an outcome at once, so a strategy that fails is not an
  // unhandled rejection while the clock runs; its error is rethrown below.
  const run: { done: boolean; error?: unknown } = { done: false };
  strategy.run(context).then(
    () => {
      run.done = true;
    },
    (error: unknown) => {
      run.done = true;
      run.error = error ?? new Error(`${strategy.name} failed`);
    },
  );
  await clock.run();
  if (!run.done)
    throw new Error(`${strategy.name} stalled in ${scenario.name}: nothing left to wake it`);
  if (run.error !== undefined) throw run.error;
  const summary = scenarioSummary(scenario, workload, log, model, work.finishedAt);
  return { summary, log };
}
