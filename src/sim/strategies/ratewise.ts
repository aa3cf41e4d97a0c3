import { classify } from '../../classify.js';
import { runAttempts } from '../../client/attempts.js';
import { retryPolicy } from '../../client/retry-policy.js';
import type { Clock } from '../../clock.js';
import { type ControlOptions, controlSetup } from '../../controller/defaults.js';
import { ScopeRegistry } from '../../controller/registry.js';
import { RetryAfterTooLongError, ScopePausedError } from '../../errors.js';
import type { Strategy } from './strategy.js';
import { runWorkers } from './strategy.js';

/** The scope every simulated request belongs to. */
export const SIM_SCOPE = 'host:sim';

/**
 * ratewise as a user gets it: the default scope controller (AIMD with slow
 * start, adaptive rate, breaker) and the client's own retry loop, with the
 * ceiling as `maxConcurrency`. `control` overrides the defaults. A request the
 * client gives up on because its scope is paused for longer than a request
 * waits is set aside, as a crawl does, and its worker waits out the pause.
 */
export function ratewiseStrategy(control: ControlOptions = {}, name = 'ratewise'): Strategy {
  return {
    name,
    description:
      'ratewise defaults: AIMD + adaptive rate + breaker per scope, retries paced by the controller',
    async run(context) {
      const { clock, random, work, transport } = context;
      const registry = new ScopeRegistry({
        setup: controlSetup({ maxConcurrency: context.maxConcurrency, ...control }),
        clock,
        random,
        ...(context.events ? { events: context.events } : {}),
      });
      const attempts = { registry, retry: retryPolicy(), clock, random };
      await runWorkers(context, context.workers, async (path) => {
        const attempted = runAttempts(attempts, {
          url: path,
          method: 'GET',
          scopes: SIM_SCOPE,
          send: () => transport.send({ path }),
          classify: (exchange) => classify(exchange, { now: clock.wallNow() }),
          timings: (exchange) => exchange.timings,
          signal: work.stop,
        });
        const pausedFor = await attempted.then(() => 0, longPauseOr(clock));
        if (pausedFor > 0) await clock.sleep(pausedFor, work.stop);
      });
    },
  };
}

/**
 * How long the scope stays paused when a request failed because the server asked for more than
 * a request waits (a Retry-After over `maxRetryAfterMs`, a pause already known to be that long):
 * a crawl sets such URLs aside and fetches them when resumed after the pause, so a simulated
 * worker waits the pause out. Any other failure is rethrown.
 */
function longPauseOr(clock: Clock): (error: unknown) => number {
  return (error) => {
    if (error instanceof RetryAfterTooLongError) return error.retryAfterMs;
    if (error instanceof ScopePausedError) return Math.max(1, error.until - clock.wallNow());
    throw error;
  };
}

/** ratewise with its defaults. */
export const ratewise: Strategy = ratewiseStrategy();

/** `strategy`, or ratewise with the probing budget `refusedShare` where it is ratewise and one is given. */
export function withBudget(strategy: Strategy, refusedShare: number | undefined): Strategy {
  if (strategy.name !== ratewise.name || refusedShare === undefined) return strategy;
  return ratewiseStrategy({ refusedShare });
}
