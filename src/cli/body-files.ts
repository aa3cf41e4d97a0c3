import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';

/** The file a URL's body is saved to in `dir`: a hash of the URL, so any URL makes a safe name. */
function bodyPath(dir: string, url: string): string {
  return join(dir, `${createHash('sha256').update(url).digest('hex').slice(0, 32)}.body`);
}

/**
 * Streams a response body to its file in `dir`, through a `.part` file renamed
 * when complete: an interrupted crawl never leaves a truncated body under the
 * final name. Resolves with the path.
 */
export async function saveBody(response: Response, dir: string, url: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = bodyPath(dir, url);
  const part = `${path}.part`;
  const source = response.body
    ? Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>)
    : Readable.from([]);
  await pipeline(source, createWriteStream(part));
  await rename(part, path);
  return path;
}

/** Reads a body to the end without keeping it. */
export async function drainBody(response: Response): Promise<void> {
  const reader = response.body?.getReader();
  if (!reader) return;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read());
}
