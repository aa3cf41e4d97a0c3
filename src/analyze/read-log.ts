import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { LogAnalysis } from './log-analysis.js';
import { LogAnalyzer, type LogAnalyzerOptions } from './log-analyzer.js';

/**
 * The lines of a log file (a path) or stream, read incrementally: memory
 * holds one chunk, never the file. `\n` and `\r\n` endings are both read.
 * A path that cannot be opened rejects with the OS error on first read.
 */
export async function* readLogLines(source: string | Readable): AsyncGenerator<string> {
  const input =
    typeof source === 'string' ? createReadStream(source, { encoding: 'utf8' }) : source;
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const line of lines) yield line;
  } finally {
    lines.close();
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
