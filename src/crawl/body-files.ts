import { createHash } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { processRuns } from './process-alive.js';

/** The file a URL's body is saved to in `dir`: a hash of the URL, so any URL makes a safe name. */
function bodyPath(dir: string, url: string): string {
  return join(dir, `${createHash('sha256').update(url).digest('hex').slice(0, 32)}.body`);
}

/** A body being written: `<hash>.body.<pid>.part` (or `.body.part`, as older versions named it). */
const PART = /^[0-9a-f]{32}\.body(?:\.(\d+))?\.part$/;

/** Bytes gathered into one write: a body in 16 KiB chunks costs a write per 256 KiB, not per chunk. */
const BATCH_BYTES = 262_144;

/** A body that could not be written to its file (a full disk, no permission): not the server's doing. */
export class BodyWriteError extends Error {
  /** @param path The file being written. @param cause The file system's error. */
  constructor(path: string, cause: unknown) {
    super(`cannot write ${path}: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'BodyWriteError';
  }
}

/**
 * Streams a response body to its file in `dir` as the reader takes it, in
 * batches of up to 256 KiB, each written while the next is read (memory
 * stays at the client's few buffers plus two batches, whatever the size),
 * through a `.part` file of this process renamed when complete: an
 * interrupted crawl never leaves a truncated body under the final name. A
 * failed download removes its `.part`; a failed write rejects with a
 * {@link BodyWriteError} and cancels the download, so the request gives its
 * place back at once instead of waiting, paused, for a reader that is gone.
 * Resolves with the path.
 */
export async function saveBody(response: Response, dir: string, url: string): Promise<string> {
  const reader = response.body?.getReader();
  const path = bodyPath(dir, url);
  const part = `${path}.${process.pid}.part`;
  const disk = <T>(operation: Promise<T>): Promise<T> =>
    operation.catch((error: unknown) => {
      throw new BodyWriteError(path, error);
    });
  let file: FileHandle | undefined;
  try {
    await disk(mkdir(dir, { recursive: true }));
    const opened = await disk(open(part, 'w'));
    file = opened;
    if (reader) await copy(reader, (chunks, bytes) => disk(writeAll(opened, chunks, bytes)));
    await disk(opened.close());
    await disk(rename(part, path));
  } catch (error) {
    await reader?.cancel(error).catch(() => {});
    await file?.close().catch(() => {});
    if (file) await unlink(part).catch(() => {});
    throw error;
  }
  return path;
}

/** Passes all `reader` yields to `write` in batches, one write in flight while the next batch is read. */
async function copy(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  write: (chunks: Uint8Array[], bytes: number) => Promise<void>,
): Promise<void> {
  let batch: Uint8Array[] = [];
  let bytes = 0;
  let writing = Promise.resolve();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    batch.push(chunk.value);
    bytes += chunk.value.byteLength;
    if (bytes < BATCH_BYTES) continue;
    await writing;
    writing = write(batch, bytes);
    writing.catch(() => {}); // awaited next round; a read failing first must not leave it unhandled
    batch = [];
    bytes = 0;
  }
  await writing;
  await write(batch, bytes);
}

/** Writes `chunks` (`bytes` in all) at the file's position, the rest again if the OS took part. */
async function writeAll(file: FileHandle, chunks: Uint8Array[], bytes: number): Promise<void> {
  if (bytes === 0) return;
  const { bytesWritten } = await file.writev(chunks);
  if (bytesWritten < bytes) await file.writeFile(Buffer.concat(chunks).subarray(bytesWritten));
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

/**
 * Makes the folder bodies are saved to (if need be) and removes the `.part`
 * files a killed crawl left there: a path that cannot be a folder (a file, or
 * a file in its way) fails with a {@link UsageError} before anything is
 * fetched, not once per URL after each download.
 */
export async function prepareBodiesDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    // mkdir -p reports the folder itself being a file as EEXIST.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new UsageError(`cannot write ${dir}: ENOTDIR (a file, not a folder)`);
    }
    throw UsageError.file('write', dir, error);
  }
  await removeStaleParts(dir);
}
