import { classify } from '../../classify.js';
import { runAttempts } from '../../client/attempts.js';
import { retryPolicy } from '../../client/retry-policy.js';
import { type ControlOptions, controlSetup } from '../../controller/defaults.js';
import { ScopeRegistry } from '../../controller/registry.js';
import type { Strategy } from './strategy.js';
import { runWorkers } from './strategy.js';

/** The scope every simulated request belongs to. */
export const SIM_SCOPE = 'host:sim';

/**
 * ratewise as a user gets it: the default scope controller (AIMD with slow
 * start, adaptive rate, breaker) and the client's own retry loop, with the
 * ceiling as `maxConcurrency`. `control` overrides the defaults.
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
        await runAttempts(attempts, {
          url: path,
          method: 'GET',
          scopes: SIM_SCOPE,
          send: () => transport.send({ path }),
          classify: (exchange) => classify(exchange, { now: clock.wallNow() }),
          timings: (exchange) => exchange.timings,
          signal: work.stop,
        });
      });
    },
  };
}

/** ratewise with its defaults. */
export const ratewise: Strategy = ratewiseStrategy();

/** `strategy`, or ratewise with the probing budget `refusedShare` where it is ratewise and one is given. */
export function withBudget(strategy: Strategy, refusedShare: number | undefined): Strategy {
  if (strategy.name !== ratewise.name || refusedShare === undefined) return strategy;
  return ratewiseStrategy({ refusedShare });
}
