import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { MAX_LINE_LENGTH } from '../analyze/parse-line.js';
import { isHttpUrl } from '../client/request-input.js';
import { readCappedLines } from '../util/capped-lines.js';

/** Longest URL a crawl sends (characters); a longer line is reported malformed. */
export const MAX_URL_LENGTH = 65_536;

/**
 * The lines of a UTF-8 stream, read chunk by chunk only as the consumer asks
 * for them: a million-line file never sits in memory, and a slow consumer
 * holds the stream back. A line is kept up to {@link MAX_LINE_LENGTH}
 * characters (an endless line costs linear time and bounded memory; it
 * comes out longer than any URL, so it is reported, not fetched). `\r\n`
 * and `\n` both end a line; a last line without a newline is yielded too.
 */
export function readLines(stream: Readable): AsyncGenerator<string> {
  return readCappedLines(stream, MAX_LINE_LENGTH);
}

/** The URL on an input line, trimmed; `undefined` for a blank line or a `#` comment. */
export function inputUrl(line: string): string | undefined {
  const text = line.trim();
  return text === '' || text.startsWith('#') ? undefined : text;
}

/**
 * Why an input line's text cannot be crawled, or `undefined` when it is an
 * absolute http(s) URL: one URL per line, so words after it (`…/item/3
 * trailing junk`) make the line malformed instead of a URL with `%20junk`.
 */
export function urlProblem(text: string): string | undefined {
  if (text.length > MAX_URL_LENGTH) return `line longer than ${MAX_URL_LENGTH} characters`;
  const [first = ''] = text.split(/\s/, 1);
  if (!isHttpUrl(first)) return 'not an http(s) URL';
  if (first !== text) return 'not one URL: text follows the URL on the line';
  return undefined;
}

/** What {@link countUrls} found in a URL file. */
export interface UrlCount {
  /** Lines that are neither blank nor `#` comments. */
  urls: number;
  /** Of those, the ones that can be crawled. */
  valid: number;
  /** The first line that cannot, with its number and why. */
  firstProblem?: { line: number; text: string; problem: string };
}

/** Counts the URL lines of a file (blank lines and `#` comments not counted), streaming. */
export async function countUrls(path: string): Promise<UrlCount> {
  const count: UrlCount = { urls: 0, valid: 0 };
  let number = 0;
  for await (const line of readLines(createReadStream(path))) {
    number++;
    const url = inputUrl(line);
    if (url === undefined) continue;
    count.urls++;
    const problem = urlProblem(url);
    if (problem === undefined) count.valid++;
    else count.firstProblem ??= { line: number, text: url, problem };
  }
  return count;
}
