import { readFile, stat } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import type { Command } from 'commander';
import { formatAnalysis } from '../analyze/format-analysis.js';
import type { LogAnalysis } from '../analyze/log-analysis.js';
import { analyzeLog } from '../analyze/read-log.js';
import { type LatencyBaseline, parseBaseline } from '../detect/baseline-file.js';
import { positiveArg } from './parsers.js';
import { FAILURE_EXIT, oneLine, USAGE_EXIT, UsageError } from './usage-error.js';

/** Where a command writes. */
export interface CommandIo {
  stdout: Writable;
  stderr: Writable;
  /** Input for a `-` log. */
  stdin: Readable;
}

const processIo = (): CommandIo => ({
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
});

/** Fails with a {@link UsageError} unless `path` is a readable regular file (`-` is stdin). */
export async function requireLogFile(path: string): Promise<void> {
  if (path === '-') return;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new UsageError(`${path} is not a file`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
}

/** Reads a baseline JSON file, or fails with a one-line {@link UsageError}. */
export async function loadBaselineFile(path: string): Promise<LatencyBaseline> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read baseline ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`,
    );
  }
  const parsed = parseBaseline(text);
  if (!parsed.ok) throw new UsageError(`${path}: ${parsed.error}`);
  return parsed.baseline;
}

/** Options of `ratewise analyze`. */
export interface AnalyzeCommandOptions {
  /** Window length, s. @default 10 */
  window?: number;
  /** Print one JSON object instead of the table. */
  json?: boolean;
  /** A baseline file (`baseline capture`) for the latency alarm. */
  baseline?: string;
}

/**
 * `ratewise analyze <log>`: streams the log (`-` for stdin) and prints the
 * window table and the diagnosis, or with `--json` the whole
 * {@link LogAnalysis}. Returns the exit code: 0, or 2 for a usage problem
 * (reported on stderr in one line).
 */
export async function runAnalyze(
  log: string,
  options: AnalyzeCommandOptions,
  io: CommandIo = processIo(),
): Promise<number> {
  try {
    await requireLogFile(log);
    const baseline = options.baseline ? await loadBaselineFile(options.baseline) : undefined;
    const source = log === '-' ? io.stdin : log;
    const analysis = await analyzeLog(source, {
      ...(options.window !== undefined ? { windowS: options.window } : {}),
      ...(baseline ? { baseline } : {}),
    });
    io.stdout.write(options.json ? `${JSON.stringify(analysis)}\n` : formatAnalysis(analysis));
    return 0;
  } catch (error) {
    return reportFailure(io, error);
  }
}

/** Writes a failure in one line (`ratewise: …`); returns 2 for a {@link UsageError}, else 1. */
export function reportFailure(io: CommandIo, error: unknown): number {
  io.stderr.write(`ratewise: ${oneLine(error)}\n`);
  return error instanceof UsageError ? USAGE_EXIT : FAILURE_EXIT;
}

/** Registers `analyze` on the `ratewise` program. */
export function registerAnalyze(program: Command): Command {
  return program
    .command('analyze')
    .description(
      'rolling requests/s, latency percentiles, 429/503 counts, decay alarms, phases and a diagnosis from a log (ratewise events or results JSONL, or "ISO8601 url latency_ms" lines)',
    )
    .argument('<log>', 'log file, or - for stdin')
    .option('--window <s>', 'window length in seconds', positiveArg, 10)
    .option(
      '--baseline <file>',
      'a baseline JSON file (ratewise baseline capture) for the latency alarm',
    )
    .option('--json', 'print one JSON object')
    .action(async (log: string, options: AnalyzeCommandOptions) => {
      process.exitCode = await runAnalyze(log, options);
    });
}
