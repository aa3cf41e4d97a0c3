import type { Clock } from '../../clock.js';
import type { EventSink } from '../../events/event.js';
import type { Random } from '../../random.js';
import type { Exchange, Transport } from '../transport.js';
import type { WorkQueue } from '../work.js';

/** What a strategy is given to run with. */
export interface StrategyContext {
  /** Reaches the server (virtual or loopback); every exchange is recorded. */
  transport: Transport;
  /** Time source for the strategy's own waits. */
  clock: Clock;
  /** Randomness for jitter. */
  random: Random;
  /** The URLs to fetch and the deadline. */
  work: WorkQueue;
  /** Concurrent callers offering work (the demand). */
  workers: number;
  /** The concurrency ceiling a strategy may use. */
  maxConcurrency: number;
  /** Receives control events, for strategies that make them. */
  events?: EventSink;
}

/** A way of sending requests to a rate-limited server, compared under one harness. */
export interface Strategy {
  /** Short name for tables, e.g. `naive`. */
  readonly name: string;
  /** One line on what it does, with its parameters. */
  readonly description: string;
  /** Fetches the work until it is done or the deadline passes. */
  run(context: StrategyContext): Promise<void>;
}

/** Attempts per URL for every strategy, so batch results compare like with like. */
export const MAX_ATTEMPTS = 6;

/** Whether a status (0: no response) is worth retrying: throttling, overload, server errors. */
function isRetryableStatus(status: number): boolean {
  return status === 0 || status === 429 || status >= 500;
}

/** Sends one request; a transport failure comes back as `undefined` (status 0 in the log). */
export async function tryExchange(
  context: StrategyContext,
  path: string,
): Promise<Exchange | undefined> {
  try {
    return await context.transport.send({ path });
  } catch {
    return undefined;
  }
}

/**
 * Fetches `path` until it succeeds, fails for good or runs out of attempts,
 * sleeping `delayMs(attempt, exchange)` between attempts (a per-request retry:
 * the recipe the simple strategies share).
 */
async function retrying(
  context: StrategyContext,
  path: string,
  delayMs: RetryDelay,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const exchange = await tryExchange(context, path);
    if (!isRetryableStatus(exchange?.status ?? 0) || attempt + 1 >= MAX_ATTEMPTS) return;
    await context.clock.sleep(delayMs(attempt, exchange), context.work.stop);
  }
}

/**
 * Sends `path` until its answer is not worth retrying or {@link MAX_ATTEMPTS}
 * are spent, waiting for `turn()` before each attempt; `answered` sees each
 * answer (undefined: none).
 */
export async function takingTurns(
  context: StrategyContext,
  path: string,
  turn: () => Promise<void>,
  answered?: (exchange: Exchange | undefined) => void,
): Promise<void> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    await turn();
    const exchange = await tryExchange(context, path);
    answered?.(exchange);
    if (!isRetryableStatus(exchange?.status ?? 0)) return;
  }
}

/** The delay before retry `attempt` of one URL, after `exchange` (undefined: no response). */
export type RetryDelay = (attempt: number, exchange: Exchange | undefined) => number;

/**
 * A fixed pool of workers at the ceiling, each retrying its own URL with the
 * delays of a fresh `delayFor()` per URL (the simple strategies' shape).
 */
export function fixedPool(context: StrategyContext, delayFor: () => RetryDelay): Promise<void> {
  const workers = Math.min(context.workers, context.maxConcurrency);
  return runWorkers(context, workers, (path) => retrying(context, path, delayFor()));
}

/**
 * Runs `count` workers that take URLs from the queue and call `fetchOne` for
 * each, until the queue is empty or the run is over. A URL whose fetch was
 * cut short by the end of the run is not counted as completed.
 */
export async function runWorkers(
  context: StrategyContext,
  count: number,
  fetchOne: (path: string) => Promise<void>,
): Promise<void> {
  const { work } = context;
  const worker = async (): Promise<void> => {
    for (let path = work.next(); path !== undefined; path = work.next()) {
      try {
        await fetchOne(path);
      } catch (error) {
        if (work.stop.aborted) return;
        throw error;
      }
      work.complete();
    }
  };
  await Promise.all(Array.from({ length: count }, worker));
}
