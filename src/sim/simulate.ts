import type { Clock } from '../clock.js';
import type { EventSink } from '../events/event.js';
import { seededRandom } from '../random.js';
import { VirtualClock } from '../virtual-clock.js';
import { ExchangeLog } from './exchange-log.js';
import { ModelTransport } from './model-transport.js';
import { createModel } from './models/catalog.js';
import type { ServerModel } from './models/model.js';
import { scenarioSummary, strategyContext } from './run-parts.js';
import type { Scenario } from './scenarios.js';
import type { Strategy } from './strategies/strategy.js';
import type { RunSummary } from './summary.js';
import { noisyTransport } from './timing-noise.js';
import type { Transport } from './transport.js';
import { type Workload, WorkQueue } from './work.js';

/** Options for {@link simulate}. */
export interface SimulateOptions {
  /** Seed for the server's jitter and the strategy's randomness. @default 1 */
  seed?: number;
  /** Overrides the scenario's run length, ms. */
  durationMs?: number;
  /** Receives the strategy's control events (ratewise's time series). */
  events?: EventSink;
  /**
   * Timing noise, ms: each request reaches the server 0..N ms after it was
   * sent and its outcome is reported 0..N ms late (seeded; see
   * {@link noisyTransport}). @default 0
   */
  timingNoiseMs?: number;
}

/** A finished run: its summary and its raw exchange log. */
export interface RunResult {
  /** The figures of the run. */
  summary: RunSummary;
  /** Every exchange. */
  log: ExchangeLog;
}

/**
 * More requests than this at one instant of virtual time is a strategy
 * re-sending without ever waiting (a hot loop): in real time it would hammer
 * the server as fast as the network allows, and in virtual time it never ends.
 */
const HOT_LOOP = 10_000;

/** What a run needs besides its server: the demand and the client's limits. */
export interface RunSetup {
  /** Demand and run length. */
  workload: Workload;
  /** Concurrency ceiling given to the strategy. */
  maxConcurrency: number;
  /** Client timeout per request, ms. */
  timeoutMs: number;
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
  const model = createModel(scenario.model, scenario.params, seededRandom(`server:${seed}`));
  const workload = {
    ...scenario.workload,
    ...(options.durationMs ? { durationMs: options.durationMs } : {}),
  };
  const setup = {
    workload,
    maxConcurrency: scenario.maxConcurrency,
    timeoutMs: scenario.timeoutMs,
  };
  const { log, finishedAt } = await simulateModel(model, setup, strategy, options);
  const summary = scenarioSummary(scenario, workload, log, model, finishedAt);
  return { summary, log };
}

/**
 * Runs `strategy` against `model` in virtual time (see {@link simulate});
 * resolves with the exchange log and, for a batch, when it finished (ms
 * since the start).
 */
export async function simulateModel(
  server: ServerModel,
  setup: RunSetup,
  strategy: Strategy,
  options: SimulateOptions = {},
): Promise<SimulatedRun> {
  const seed = options.seed ?? 1;
  const clock = new VirtualClock({ start: 0 });
  const log = new ExchangeLog();
  const work = new WorkQueue(setup.workload, clock);
  const result: SimulatedRun = { log, finishedAt: undefined };
  const model = new ModelTransport(server, clock, { timeoutMs: setup.timeoutMs });
  const logged = log.wrap(hotLoopGuard(model, clock, work, result), clock, 0);
  const transport = noisyTransport(logged, clock, options.timingNoiseMs ?? 0, seed);
  const context = strategyContext(setup.maxConcurrency, strategy, seed, {
    transport,
    clock,
    work,
    workload: setup.workload,
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
    throw new Error(`${strategy.name} stalled in ${server.name}: nothing left to wake it`);
  if (run.error !== undefined) throw run.error;
  result.finishedAt = work.finishedAt;
  return result;
}

/** A simulated run: its exchanges, when a batch finished, and whether it was cut short by a hot loop. */
export interface SimulatedRun {
  log: ExchangeLog;
  /** When a batch completed, ms since the start. */
  finishedAt: number | undefined;
  /** Set when the strategy re-sent without waiting and the run was ended (see {@link HOT_LOOP}). */
  hotLoopAt?: number;
}

/** Ends the run when more than {@link HOT_LOOP} requests go out at one virtual instant. */
function hotLoopGuard(
  transport: Transport,
  clock: Clock,
  work: WorkQueue,
  result: SimulatedRun,
): Transport {
  let instant = Number.NaN;
  let sent = 0;
  return {
    send(request) {
      const now = clock.now();
      sent = now === instant ? sent + 1 : 1;
      instant = now;
      if (sent > HOT_LOOP && result.hotLoopAt === undefined) {
        result.hotLoopAt = now;
        work.abort(new Error(`hot loop: ${HOT_LOOP} requests at ${now} ms without waiting`));
      }
      return transport.send(request);
    },
  };
}
