import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/**
 * The lines of a UTF-8 stream, read chunk by chunk only as the consumer asks
 * for them: a million-line file never sits in memory, and a slow consumer
 * holds the stream back. `\r\n` and `\n` both end a line; a last line without
 * a newline is yielded too.
 */
export async function* readLines(stream: Readable): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  for await (const chunk of stream) {
    pending += typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
    let start = 0;
    for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n', start)) {
      yield stripCr(pending.slice(start, end));
      start = end + 1;
    }
    pending = pending.slice(start);
  }
  pending += decoder.end();
  if (pending !== '') yield stripCr(pending);
}

/** The URL on an input line, trimmed; `undefined` for a blank line or a `#` comment. */
export function inputUrl(line: string): string | undefined {
  const text = line.trim();
  return text === '' || text.startsWith('#') ? undefined : text;
}

/** Counts the URL lines of a file (blank lines and `#` comments not counted), streaming. */
export async function countUrls(path: string): Promise<number> {
  let urls = 0;
  for await (const line of readLines(createReadStream(path))) {
    if (inputUrl(line) !== undefined) urls++;
  }
  return urls;
}

function stripCr(text: string): string {
  return text.endsWith('\r') ? text.slice(0, -1) : text;
}
