import { createReadStream } from 'node:fs';
import { mkdir, open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Writable } from 'node:stream';
import { UsageError } from '../errors.js';
import { lockFile } from './file-lock.js';
import { readLines } from './line-reader.js';

/** Where a results file's lines go: a file handle or a stream. */
interface LineTarget {
  write(line: string): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** Bytes read at a time while looking for the last newline of a torn file. */
const TAIL_CHUNK = 65_536;

/**
 * A crawl's results file: one JSON object per line, each appended with a
 * single write as soon as its URL is finished, so a crash or a kill at any
 * moment loses no written result. Opened with `resume`, it keeps what is
 * there, cuts off a torn last line (a write the crash interrupted) and reports
 * the URLs already done, so they are neither fetched nor written again.
 */
export class ResultsFile {
  readonly #target: LineTarget;
  /** Writes go out one at a time, in order. */
  #tail: Promise<unknown> = Promise.resolve();

  private constructor(target: LineTarget) {
    this.#target = target;
  }

  /**
   * Results written to a stream (`process.stdout` when `crawl` has no
   * `--out`), each line once its write is accepted; `close()` leaves the
   * stream open.
   */
  static toStream(stream: Writable): ResultsFile {
    return new ResultsFile({
      write: (line) =>
        new Promise((resolve, reject) =>
          stream.write(line, (error) => (error ? reject(error) : resolve())),
        ),
      sync: async () => {},
      close: async () => {},
    });
  }

  /**
   * Opens `path` (created, with its directory), truncated unless `resume`,
   * and locks it for this process until {@link close}: a second crawl on the
   * same file fails with a {@link UsageError} instead of writing every
   * remaining URL twice (a lock left by a killed run is taken over).
   */
  static async open(
    path: string,
    resume: boolean,
  ): Promise<{ file: ResultsFile; completed: Set<string> }> {
    let release: () => Promise<void>;
    try {
      await mkdir(dirname(path), { recursive: true });
      release = await lockFile(path);
    } catch (error) {
      throw UsageError.file('write', path, error);
    }
    try {
      const completed = resume ? await readCompleted(path) : new Set<string>();
      const handle = await openFile(path, resume);
      const target: LineTarget = {
        write: async (line) => {
          await handle.write(line);
        },
        sync: () => handle.sync(),
        close: () => handle.close().finally(release),
      };
      return { file: new ResultsFile(target), completed };
    } catch (error) {
      await release();
      throw error;
    }
  }

  /** Appends one result as one line, in one write (after the writes before it). */
  append(result: object): Promise<void> {
    const line = `${JSON.stringify(result)}\n`;
    const written = this.#tail.then(() => this.#target.write(line));
    this.#tail = written.catch(() => {});
    return written.then(() => {});
  }

  /** Waits for the writes, flushes to disk and closes (also when the flush fails). */
  async close(): Promise<void> {
    try {
      await this.#tail;
      await this.#target.sync();
    } finally {
      await this.#target.close();
    }
  }
}

async function openFile(path: string, resume: boolean) {
  try {
    return await open(path, resume ? 'a' : 'w');
  } catch (error) {
    throw UsageError.file('write', path, error);
  }
}

/**
 * The `url` of every complete line of an existing results file (none if there
 * is no file), after cutting off a torn last line. A file that cannot be read
 * or cut is a {@link UsageError} (`cannot resume from out.jsonl: EACCES`).
 */
async function readCompleted(path: string): Promise<Set<string>> {
  const completed = new Set<string>();
  try {
    if (!(await cutTornLine(path))) return completed;
    for await (const line of readLines(createReadStream(path))) {
      const url = urlOf(line);
      if (url !== undefined) completed.add(url);
    }
  } catch (error) {
    throw UsageError.file('resume from', path, error);
  }
  return completed;
}

/**
 * Truncates an append-only file of lines after its last newline, dropping a
 * line whose write was cut short (by a crash or a kill), so that what is
 * appended next starts on a line of its own. Resolves with `false` when there
 * is no file. Throws a {@link UsageError} for a path that is not a file, and
 * the file system's error when it cannot be read or truncated.
 */
export async function cutTornLine(path: string): Promise<boolean> {
  const size = await fileSize(path);
  if (size === undefined) return false;
  const handle = await open(path, 'r+');
  try {
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - TAIL_CHUNK);
      const buffer = Buffer.alloc(end - start);
      await handle.read(buffer, 0, buffer.length, start);
      const newline = buffer.lastIndexOf(10);
      if (newline !== -1) {
        end = start + newline + 1;
        break;
      }
      end = start;
    }
    if (end < size) await handle.truncate(end);
  } finally {
    await handle.close();
  }
  return true;
}

async function fileSize(path: string): Promise<number | undefined> {
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new UsageError(`${path} is not a file`);
    return info.size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function urlOf(text: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    const url = (parsed as { url?: unknown } | null)?.url;
    return typeof url === 'string' ? url : undefined;
  } catch {
    return undefined;
  }
}
