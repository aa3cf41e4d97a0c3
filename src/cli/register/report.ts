import type { Command } from 'commander';
import { windowArg } from '../parsers.js';
import { exitWith } from '../program.js';
import type { ReportCommandOptions } from '../report.js';

/** Registers `report` on the `ratewise` program. */
export function registerReport(program: Command): Command {
  return program
    .command('report')
    .description(
      'write one self-contained HTML report (charts of rate, limit, in flight, p95, 429/503, alarms, plus the analysis) from a log',
    )
    .argument(
      '<log>',
      'log file (ratewise events or results JSONL, or "ISO8601 url latency_ms" lines)',
    )
    .option('-o, --out <file>', 'HTML file to write', 'report.html')
    .option('--window <s>', 'window of the summary table, seconds', windowArg, 10)
    .option('--baseline <file>', 'a baseline JSON file for the latency alarm')
    .option('--title <text>', 'page title (default: the log file name)')
    .option(
      '--compare <log>',
      'another run of the same job (say, without ratewise) to show beside this one',
    )
    .option('--json', 'print what was written as JSON')
    .action((log: string, options: ReportCommandOptions) =>
      exitWith(import('../report.js').then(({ runReport }) => runReport(log, options))),
    );
}
