import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/** One line of a text stream and whether it was ended by a newline. */
export interface Line {
  text: string;
  /** `false` only for a last line with no newline after it (possibly cut short). */
  complete: boolean;
}

/**
 * The lines of a UTF-8 stream, read chunk by chunk only as the consumer asks
 * for them: a million-line file never sits in memory, and a slow consumer
 * holds the stream back. `\r\n` and `\n` both end a line.
 */
export async function* readLines(stream: Readable): AsyncGenerator<Line> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  for await (const chunk of stream) {
    pending += typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
    let start = 0;
    for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n', start)) {
      yield { text: stripCr(pending.slice(start, end)), complete: true };
      start = end + 1;
    }
    pending = pending.slice(start);
  }
  pending += decoder.end();
  if (pending !== '') yield { text: stripCr(pending), complete: false };
}

/** Counts the lines of a file (a last line without a newline included), streaming. */
export async function countLines(path: string): Promise<number> {
  let lines = 0;
  let last = 10;
  for await (const chunk of createReadStream(path)) {
    const bytes = chunk as Buffer;
    for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) lines++;
    if (bytes.length > 0) last = bytes[bytes.length - 1] as number;
  }
  return last === 10 ? lines : lines + 1;
}

function stripCr(text: string): string {
  return text.endsWith('\r') ? text.slice(0, -1) : text;
}
