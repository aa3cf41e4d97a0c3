import type { Command } from 'commander';
import { MAX_RAMP_CONCURRENCY } from '../../analyze/concurrency-ramp.js';
import type { DiagnoseCommandOptions } from '../diagnose.js';
import { numberArg, rangeArg } from '../parsers.js';
import { exitWith } from '../program.js';

/** Registers `diagnose` on the `ratewise` program. */
export function registerDiagnose(program: Command): Command {
  return program
    .command('diagnose')
    .description(
      'ramp concurrency 1, 2, 4 … against a URL and report where requests/s stops scaling, and why',
    )
    .argument('<url>', 'the URL to request')
    .option(
      '--max-concurrency <n>',
      'highest concurrency tried',
      rangeArg({ min: 1, max: MAX_RAMP_CONCURRENCY, integer: true }),
      64,
    )
    .option(
      '--requests-per-step <n>',
      'requests per step (at least 4 × its concurrency are sent)',
      numberArg({ min: 1, integer: true }),
      50,
    )
    .option('--timeout-ms <ms>', 'longest one request may take', numberArg({ min: 1 }), 30_000)
    .option('--json', 'print one JSON object')
    .action((url: string, options: DiagnoseCommandOptions) =>
      exitWith(
        import('../diagnose.js').then(({ diagnoseCommand }) => diagnoseCommand(url, options)),
      ),
    );
}
