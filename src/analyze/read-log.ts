import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { LogAnalysis } from './log-analysis.js';
import { LogAnalyzer, type LogAnalyzerOptions } from './log-analyzer.js';
import { MAX_LINE_LENGTH } from './parse-line.js';

/** Characters kept of one line: enough that a line over the limit still reads as over it after a `\r` is stripped. */
const KEPT = MAX_LINE_LENGTH + 2;

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
  const decoder = new StringDecoder('utf8');
  let line = '';
  const take = (piece: string) => {
    line += line.length + piece.length > KEPT ? piece.slice(0, KEPT - line.length) : piece;
  };
  try {
    for await (const chunk of input) {
      const text = typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
      let start = 0;
      for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
        take(text.slice(start, end));
        yield stripCr(line);
        line = '';
        start = end + 1;
      }
      take(text.slice(start));
    }
    take(decoder.end());
    if (line !== '') yield stripCr(line);
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

function stripCr(text: string): string {
  return text.endsWith('\r') ? text.slice(0, -1) : text;
}
