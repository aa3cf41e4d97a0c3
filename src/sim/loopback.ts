import { systemClock } from '../clock.js';
import type { EventSink } from '../events/event.js';
import { seededRandom } from '../random.js';
import { startMockServer } from '../testing/mock-server.js';
import { ExchangeLog } from './exchange-log.js';
import { HttpTransport } from './http-transport.js';
import { createModel } from './models/catalog.js';
import { scenarioSummary, strategyContext } from './run-parts.js';
import type { Scenario } from './scenarios.js';
import type { RunResult } from './simulate.js';
import type { Strategy } from './strategies/strategy.js';
import { WorkQueue } from './work.js';

/** Options for {@link runLoopback}. */
export interface LoopbackOptions {
  /** Seed for the server's jitter and the strategy's randomness. @default 1 */
  seed?: number;
  /** Run length, ms (required: real time passes). */
  durationMs: number;
  /** Receives the strategy's control events. */
  events?: EventSink;
  /** Records the exchanges here (to watch a run as it goes). @default a new log */
  log?: ExchangeLog;
}

/**
 * Runs `strategy` against a real HTTP mock server on 127.0.0.1 built from
 * the scenario's model — the same model the simulator uses — in real time.
 */
export async function runLoopback(
  scenario: Scenario,
  strategy: Strategy,
  options: LoopbackOptions,
): Promise<RunResult> {
  const seed = options.seed ?? 1;
  const model = createModel(scenario.model, scenario.params, seededRandom(`server:${seed}`));
  const server = await startMockServer({ model });
  const http = new HttpTransport(
    server.url,
    scenario.maxConcurrency + 8,
    scenario.timeoutMs,
    systemClock,
  );
  const origin = systemClock.now();
  const log = options.log ?? new ExchangeLog();
  const workload = { ...scenario.workload, durationMs: options.durationMs };
  const work = new WorkQueue(workload, systemClock);
  try {
    const transport = log.wrap(http, systemClock, origin);
    await strategy.run(
      strategyContext(scenario.maxConcurrency, strategy, seed, {
        transport,
        clock: systemClock,
        work,
        workload,
        events: options.events,
      }),
    );
  } finally {
    await http.close();
    await server.close();
  }
  const batchDoneMs = work.finishedAt === undefined ? undefined : work.finishedAt - origin;
  const summary = scenarioSummary(scenario, workload, log, model, batchDoneMs);
  return { summary, log };
}
