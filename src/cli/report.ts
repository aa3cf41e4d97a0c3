import { basename } from 'node:path';
import type { Command } from 'commander';
import { writeReport } from '../report/write-report.js';
import {
  analysisOptions,
  type CommandIo,
  processIo,
  reportFailure,
  requireLogFile,
  windowArg,
} from './analyze.js';
import { requireFileTarget, writeFailure } from './output-file.js';
import { exitWith } from './program.js';
import { UsageError } from './usage-error.js';

/** Options of `ratewise report`. */
export interface ReportCommandOptions {
  /** The HTML file to write. @default 'report.html' */
  out?: string;
  /** Window of the summary table, s. @default 10 */
  window?: number;
  /** A baseline file for the latency alarm. */
  baseline?: string;
  /** Page title. @default the log's file name */
  title?: string;
  /** Another run's log to show beside this one. */
  compare?: string;
  /** Print `{ path, bytes, points, bucketS }` as JSON. */
  json?: boolean;
}

/**
 * `ratewise report <log> -o report.html`: one self-contained HTML file with
 * the charts and the analysis. The log must be a file (it is read twice).
 * Prints the path written. Exit 0, or 2 for a usage problem: a log that
 * cannot be read or has no usable line, an output that cannot be written.
 */
export async function runReport(
  log: string,
  options: ReportCommandOptions,
  io: CommandIo = processIo(),
): Promise<number> {
  try {
    if (log === '-')
      throw new UsageError('report needs a log file, not stdin (it reads the log twice)');
    await requireLogFile(log);
    const out = options.out ?? 'report.html';
    await requireFileTarget(out);
    const asked = await analysisOptions(options);
    if (options.compare !== undefined) await requireLogFile(options.compare);
    const written = await writeReport({
      log,
      out,
      ...asked,
      ...(options.title !== undefined ? { title: options.title } : {}),
      ...(options.compare !== undefined
        ? { compare: { log: options.compare, label: basename(options.compare) } }
        : {}),
    }).catch((error: unknown) => {
      throw writeFailure(error, out);
    });
    const kb = Math.ceil(written.bytes / 1024);
    io.stdout.write(
      options.json
        ? `${JSON.stringify(written)}\n`
        : `wrote ${written.path} (${kb} KB, ${written.points} points per series in ${written.bucketS} s buckets)\n`,
    );
    return 0;
  } catch (error) {
    return reportFailure(io, error);
  }
}

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
    .action((log: string, options: ReportCommandOptions) => exitWith(runReport(log, options)));
}
