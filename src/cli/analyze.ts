import { readFile, stat } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import type { LogAnalyzerOptions } from '../analyze/analyzer-options.js';
import { formatAnalysis } from '../analyze/format-analysis.js';
import type { LogAnalysis } from '../analyze/log-analysis.js';
import { analyzeLog } from '../analyze/read-log.js';
import { lineUse, requireUsable } from '../analyze/unusable-log.js';
import { type LatencyBaseline, parseBaseline } from '../detect/baseline-file.js';
import { TooManyWindowsError, UnusableLogError } from '../errors.js';
import { FAILURE_EXIT, oneLine, USAGE_EXIT, UsageError } from './usage-error.js';

/** Where a command writes. */
export interface CommandIo {
  stdout: Writable;
  stderr: Writable;
  /** Input for a `-` log. */
  stdin: Readable;
}

/** The process's own streams: the default {@link CommandIo} of every command. */
export function processIo(): CommandIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin };
}

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

/**
 * What `--window` and `--baseline` (of `analyze` and `report`) ask of the
 * analyser, the baseline file read and checked.
 */
export async function analysisOptions(options: {
  window?: number;
  baseline?: string;
}): Promise<Pick<LogAnalyzerOptions, 'windowS' | 'baseline'>> {
  const baseline = options.baseline ? await loadBaselineFile(options.baseline) : undefined;
  return {
    ...(options.window !== undefined ? { windowS: options.window } : {}),
    ...(baseline ? { baseline } : {}),
  };
}

/** Reads a baseline JSON file, or fails with a one-line {@link UsageError}. */
async function loadBaselineFile(path: string): Promise<LatencyBaseline> {
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
 * — a log with no usable line included — reported on stderr in one line.
 */
export async function runAnalyze(
  log: string,
  options: AnalyzeCommandOptions,
  io: CommandIo = processIo(),
): Promise<number> {
  try {
    await requireLogFile(log);
    const asked = await analysisOptions(options);
    const analysis = await analyzeLog(log === '-' ? io.stdin : log, asked);
    requireUsable(lineUse(analysis), log === '-' ? 'stdin' : log);
    io.stdout.write(options.json ? `${JSON.stringify(analysis)}\n` : formatAnalysis(analysis));
    return 0;
  } catch (error) {
    return reportFailure(io, error);
  }
}

/**
 * Writes a failure in one line (`ratewise: …`); returns 2 for a usage
 * problem — a {@link UsageError}, a `--window` too narrow for the log
 * ({@link TooManyWindowsError}), a log with no usable line
 * ({@link UnusableLogError}) — else 1.
 */
export function reportFailure(io: CommandIo, error: unknown): number {
  const failure =
    error instanceof TooManyWindowsError
      ? new UsageError(`--window ${error.windowMs / 1000}: ${oneLine(error)}`)
      : error instanceof UnusableLogError
        ? new UsageError(error.message)
        : error;
  io.stderr.write(`ratewise: ${oneLine(failure)}\n`);
  return failure instanceof UsageError ? USAGE_EXIT : FAILURE_EXIT;
}
