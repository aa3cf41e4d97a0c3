import { runWorkers, type Strategy, takingTurns } from './strategy.js';

/**
 * The fixed-sleep baseline many scrapers start from: one request at a time
 * with a fixed pause before each (0.5 s: at most 2 requests/s), whatever the server does.
 */
export function fixedSleep(sleepMs = 500): Strategy {
  return {
    name: `sleep-${sleepMs / 1000}s`,
    description: `one request at a time, a fixed ${sleepMs} ms sleep before each`,
    run(context) {
      return runWorkers(context, 1, (path) =>
        takingTurns(context, path, () => context.clock.sleep(sleepMs, context.work.stop)),
      );
    },
  };
}
