import { basename } from 'node:path';
import { writeReport } from '../report/write-report.js';
import {
  analysisOptions,
  type CommandIo,
  processIo,
  reportFailure,
  requireLogFile,
} from './analyze.js';
import { requireFileTarget, writeFailure } from './output-file.js';
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
