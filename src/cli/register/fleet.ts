import type { Command } from 'commander';
import type { FleetStatusOptions } from '../fleet.js';
import { exitWith } from '../program.js';

/** Registers `ratewise fleet status --redis URL [--json]`. */
export function registerFleet(program: Command): Command {
  const fleet = program
    .command('fleet')
    .description('the shared state of a fleet of workers (crawl --redis)');
  fleet
    .command('status')
    .description("each scope's fleet state: window, rate, epoch, in flight by worker, pause")
    .requiredOption('--redis <url>', 'the Redis the fleet shares (redis://host:port)')
    .option('--prefix <prefix>', 'the fleet key prefix', 'rw')
    .option('--json', 'one JSON array of scopes')
    .action((options: FleetStatusOptions) =>
      exitWith(import('../fleet.js').then(({ fleetStatus }) => fleetStatus(options))),
    );
  return fleet;
}
