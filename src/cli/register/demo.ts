import type { Command } from 'commander';
import type { DemoOptions } from '../demo.js';
import { formerFlag, positiveArg } from '../parsers.js';
import { exitWith } from '../program.js';

/** Registers `ratewise demo`. */
export function registerDemo(program: Command): Command {
  return program
    .command('demo')
    .description(
      'the demo server of docs/server-models.md, on loopback: a server with a hidden 30 req/s limit and 350 ms latency, 40 workers, ratewise against naive per-worker backoff',
    )
    .option('--duration <s>', 'seconds per run', positiveArg, 25)
    .option('--dir <dir>', 'where the events log and the HTML report go', 'ratewise-demo')
    .addOption(formerFlag('--out <dir>', '--dir'))
    .option('--no-compare', 'skip the naive run')
    .option('--json', 'print the two summaries as one JSON object (last line of stdout)')
    .action((options: DemoOptions) =>
      exitWith(import('../demo.js').then(({ demoCommand }) => demoCommand(options))),
    );
}
