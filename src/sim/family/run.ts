import type { EventSink } from '../../events/event.js';
import { simulateModel } from '../simulate.js';
import type { Strategy } from '../strategies/strategy.js';
import { summarise } from '../summary.js';
import { familyModel } from './build.js';
import { measureRun, type ServerMeasures } from './measures.js';
import type { FamilyServer } from './server.js';

/** One strategy on one family server. */
export interface FamilyRun {
  readonly index: number;
  readonly strategy: string;
  readonly measures: ServerMeasures;
  /** A batch's completion time, s (ramp servers); null for timed runs or an unfinished batch. */
  readonly batchS: number | null;
  /** Served per second over the last quarter of a batch; null for timed runs. */
  readonly finalQuarterRate: number | null;
  /** When the run was ended because the strategy re-sent without ever waiting, ms. */
  readonly hotLoopAt?: number;
}

/** Options of {@link runFamilyServer}. */
export interface FamilyRunOptions {
  /** Overrides the server's run length, ms. */
  durationMs?: number;
  /** Receives the strategy's control events. */
  events?: EventSink;
  /** Timing noise between the strategy and the server, ms (see `SimulateOptions.timingNoiseMs`). @default 0 */
  timingNoiseMs?: number;
}

/** Runs `strategy` against a family server in virtual time and counts it on the server's side. */
export async function runFamilyServer(
  server: FamilyServer,
  strategy: Strategy,
  options: FamilyRunOptions = {},
): Promise<FamilyRun> {
  const model = familyModel(server);
  const durationMs = options.durationMs ?? server.durationMs;
  const { maxConcurrency, timeoutMs, urls } = server.client;
  const workload = { workers: maxConcurrency, durationMs, ...(urls ? { urls } : {}) };
  const { log, finishedAt, hotLoopAt } = await simulateModel(
    model,
    { workload, maxConcurrency, timeoutMs },
    strategy,
    {
      seed: server.seed * 100_000 + server.index,
      ...(options.events ? { events: options.events } : {}),
      ...(options.timingNoiseMs ? { timingNoiseMs: options.timingNoiseMs } : {}),
    },
  );
  const batch =
    urls === undefined
      ? undefined
      : summarise({
          log,
          capacity: () => undefined,
          steadyFromMs: 0,
          endMs: durationMs,
          maxConcurrency,
          batchDoneMs: finishedAt,
          batch: true,
        });
  return {
    index: server.index,
    strategy: strategy.name,
    measures: measureRun(server, model.record, finishedAt ?? hotLoopAt ?? durationMs),
    batchS: batch?.batchS ?? null,
    finalQuarterRate: batch?.finalQuarterRate ?? null,
    ...(hotLoopAt === undefined ? {} : { hotLoopAt }),
  };
}
