import type { Command } from 'commander';
import { numberArg } from '../parsers.js';
import type { ProbeOptions } from '../probe.js';
import { exitWith } from '../program.js';

/** Registers `ratewise probe <url>`. */
export function registerProbe(program: Command): Command {
  return program
    .command('probe')
    .description(
      'per-phase timings over N requests, with a verdict (healthy, tarpit, byte-drip, slow DNS/connect)',
    )
    .argument('<url>', 'the URL to probe')
    .option('-n <count>', 'requests to send', numberArg({ min: 1, integer: true }), 10)
    .option(
      '--keep-alive',
      'reuse the connection (by default each request opens its own, as curl does)',
    )
    .option('--json', 'print one JSON object')
    .action((url: string, options: ProbeOptions) =>
      exitWith(import('../probe.js').then(({ probeCommand }) => probeCommand(url, options))),
    );
}
