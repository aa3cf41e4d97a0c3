import type { Command } from 'commander';
import type { AnalyzeCommandOptions } from '../analyze.js';
import { windowArg } from '../parsers.js';
import { exitWith } from '../program.js';

/** Registers `analyze` on the `ratewise` program. */
export function registerAnalyze(program: Command): Command {
  return program
    .command('analyze')
    .description(
      'rolling requests/s, latency percentiles, 429/503 counts, decay alarms, phases and a diagnosis from a log (ratewise events or results JSONL, or "ISO8601 url latency_ms" lines)',
    )
    .argument('<log>', 'log file, or - for stdin')
    .option('--window <s>', 'window length in seconds', windowArg, 10)
    .option(
      '--baseline <file>',
      'a baseline JSON file (ratewise baseline capture) for the latency alarm',
    )
    .option('--json', 'print one JSON object')
    .action((log: string, options: AnalyzeCommandOptions) =>
      exitWith(import('../analyze.js').then(({ runAnalyze }) => runAnalyze(log, options))),
    );
}
