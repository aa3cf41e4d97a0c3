import type { Command } from 'commander';
import { MAX_REFUSED_SHARE } from '../../controller/control-bounds.js';
import { SCENARIOS } from '../../sim/scenarios.js';
import { STRATEGY_NAMES } from '../../sim/strategies/names.js';
import type { BenchCommandOptions } from '../bench.js';
import { formerFlag, numberArg, positiveArg, shareArg } from '../parsers.js';
import { exitWith } from '../program.js';

/** Registers `ratewise bench`. */
export function registerBench(program: Command): Command {
  return program
    .command('bench')
    .description('compare rate-control strategies on server models, in virtual time or on loopback')
    .option(
      '--scenario <names>',
      `comma-separated scenarios (${SCENARIOS.map((s) => s.name).join(', ')})`,
    )
    .option('--strategy <names>', `comma-separated strategies (${STRATEGY_NAMES.join(', ')})`)
    .option('--seed <n>', 'seed of the servers and strategies', numberArg({ integer: true }), 1)
    .option(
      '--duration <s>',
      'run length in seconds (default: each scenario’s; 30 with --real)',
      positiveArg,
    )
    .option('--real', 'run against real mock servers on 127.0.0.1 instead of the simulator')
    .option(
      '--family <n>',
      'sample n servers of the randomized family (with --seed) instead of the scenarios',
      numberArg({ min: 1, integer: true }),
    )
    .option(
      '--field <n>',
      'sample n servers of limits as deployed in the field (nginx limit_req, sliding window counters, Envoy-style lumpy buckets, penalty boxes), which ratewise was never tuned on',
      numberArg({ min: 1, integer: true }),
    )
    .option(
      '--timing-noise-ms <ms>',
      'with --family or --field: each request reaches the server 0..ms late and its outcome is reported 0..ms late (seeded)',
      numberArg(),
    )
    .addOption(formerFlag('--timing-noise <ms>', '--timing-noise-ms', numberArg()))
    .option(
      '--refused-share <share>',
      'run ratewise with this probing budget: the share of requests its probes may spend on refusals (default 0.01)',
      shareArg(MAX_REFUSED_SHARE),
    )
    .option('--json', 'print the results as one JSON object (last line of stdout)')
    .option(
      '--write <file>',
      'also put the tables and this command into a Markdown file (e.g. BENCHMARKS.md)',
    )
    .action((options: BenchCommandOptions) =>
      exitWith(
        import('../bench.js').then(({ benchCommand }) =>
          benchCommand(options, process.argv.slice(2)),
        ),
      ),
    );
}
