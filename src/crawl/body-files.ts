import { createHash } from 'node:crypto';
import { mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { processRuns } from './process-alive.js';

/** The file a URL's body is saved to in `dir`: a hash of the URL, so any URL makes a safe name. */
function bodyPath(dir: string, url: string): string {
  return join(dir, `${createHash('sha256').update(url).digest('hex').slice(0, 32)}.body`);
}

/** A body being written: `<hash>.body.<pid>.part` (or `.body.part`, as older versions named it). */
const PART = /^[0-9a-f]{32}\.body(?:\.(\d+))?\.part$/;

/**
 * Streams a response body to its file in `dir`, chunk by chunk as the reader
 * takes them (memory stays at the client's few buffers, whatever the size),
 * through a `.part` file of this process renamed when complete: an
 * interrupted crawl never leaves a truncated body under the final name, and
 * a failed download removes its `.part`. Resolves with the path.
 */
export async function saveBody(response: Response, dir: string, url: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = bodyPath(dir, url);
  const part = `${path}.${process.pid}.part`;
  const file = await open(part, 'w');
  try {
    const reader = response.body?.getReader();
    for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader?.read()) {
      await file.write(chunk.value);
    }
    await file.close();
  } catch (error) {
    await file.close().catch(() => {});
    await unlink(part).catch(() => {});
    throw error;
  }
  await rename(part, path);
  return path;
}

/**
 * Removes the `.part` files a killed crawl left in `dir` (their process is
 * gone); those of a crawl still running, this one's included, are left
 * alone. Resolves with how many went. A missing `dir` has none.
 */
export async function removeStaleParts(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const match = PART.exec(name);
    if (match === null || processRuns(Number(match[1] ?? 0))) continue;
    await unlink(join(dir, name)).catch(() => {});
    removed++;
  }
  return removed;
}

/** Reads a body to the end without keeping it. */
export async function drainBody(response: Response): Promise<void> {
  const reader = response.body?.getReader();
  if (!reader) return;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read());
}
