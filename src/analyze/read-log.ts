import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { readCappedLines } from '../util/capped-lines.js';
import type { LogAnalysis } from './log-analysis.js';
import { LogAnalyzer, type LogAnalyzerOptions } from './log-analyzer.js';
import { MAX_LINE_LENGTH } from './parse-line.js';

/**
 * The lines of a log file (a path) or stream, read incrementally: memory
 * holds one chunk and at most the first {@link MAX_LINE_LENGTH} (+2)
 * characters of one line, never the file — also for a file without
 * newlines. A longer line is yielded cut short, its rest discarded unread;
 * it is still longer than the limit, so `parseLogLine` rejects it as too
 * long. `\n` and `\r\n` endings are both read. A path that cannot be
 * opened rejects with the OS error on first read.
 */
export async function* readLogLines(source: string | Readable): AsyncGenerator<string> {
  const input = typeof source === 'string' ? createReadStream(source) : source;
  try {
    yield* readCappedLines(input, MAX_LINE_LENGTH);
  } finally {
    if (typeof source === 'string') input.destroy();
  }
}

/** Streams a log (path or stream) through a {@link LogAnalyzer} and returns the analysis. */
export async function analyzeLog(
  source: string | Readable,
  options: LogAnalyzerOptions = {},
): Promise<LogAnalysis> {
  const analyzer = new LogAnalyzer(options);
  for await (const line of readLogLines(source)) analyzer.push(line);
  return analyzer.finish();
}
