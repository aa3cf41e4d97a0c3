import type { EventSink } from '../events/event.js';
import { seededRandom } from '../random.js';
import { VirtualClock } from '../virtual-clock.js';
import { ExchangeLog } from './exchange-log.js';
import { ModelTransport } from './model-transport.js';
import { createModel } from './models/catalog.js';
import type { Scenario } from './scenarios.js';
import type { Strategy } from './strategies/strategy.js';
import { type RunSummary, summarise } from './summary.js';
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
  let finished = false;
  const running = strategy
    .run({
      transport,
      clock,
      random: seededRandom(`${strategy.name}:${seed}`),
      work,
      workers: workload.workers,
      maxConcurrency: scenario.maxConcurrency,
      ...(options.events ? { events: options.events } : {}),
    })
    .finally(() => {
      finished = true;
    });
  await clock.run();
  if (!finished)
    throw new Error(`${strategy.name} stalled in ${scenario.name}: nothing left to wake it`);
  await running;
  const summary = summarise({
    log,
    capacity: (at) => model.capacity(at),
    steadyFromMs: Math.min(scenario.steadyFromMs, workload.durationMs / 2),
    endMs: workload.durationMs,
    maxConcurrency: scenario.maxConcurrency,
    batchDoneMs: work.finishedAt,
    batch: workload.urls !== undefined,
  });
  return { summary, log };
}
