import type { Clock } from '../clock.js';
import type { EventSink } from '../events/event.js';
import { seededRandom } from '../random.js';
import type { ExchangeLog } from './exchange-log.js';
import type { ServerModel } from './models/model.js';
import type { Scenario } from './scenarios.js';
import type { Strategy, StrategyContext } from './strategies/strategy.js';
import { type RunSummary, summarise } from './summary.js';
import type { Transport } from './transport.js';
import type { Workload, WorkQueue } from './work.js';

/** What a strategy runs with, in the simulator or on loopback alike. */
export function strategyContext(
  maxConcurrency: number,
  strategy: Strategy,
  seed: number,
  parts: {
    transport: Transport;
    clock: Clock;
    work: WorkQueue;
    workload: Workload;
    events: EventSink | undefined;
  },
): StrategyContext {
  return {
    transport: parts.transport,
    clock: parts.clock,
    random: seededRandom(`${strategy.name}:${seed}`),
    work: parts.work,
    workers: parts.workload.workers,
    maxConcurrency,
    ...(parts.events ? { events: parts.events } : {}),
  };
}

/** The figures of a finished run; `batchDoneMs` is relative to the run's start. */
export function scenarioSummary(
  scenario: Scenario,
  workload: Workload,
  log: ExchangeLog,
  model: ServerModel,
  batchDoneMs: number | undefined,
): RunSummary {
  return summarise({
    log,
    capacity: (at) => model.capacity(at),
    steadyFromMs: Math.min(scenario.steadyFromMs, workload.durationMs / 2),
    endMs: workload.durationMs,
    maxConcurrency: scenario.maxConcurrency,
    batchDoneMs,
    batch: workload.urls !== undefined,
  });
}
