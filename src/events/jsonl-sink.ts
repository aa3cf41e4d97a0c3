import { close, fsync, mkdirSync, openSync, writeFile } from 'node:fs';
import { dirname } from 'node:path';
import type { Writable } from 'node:stream';
import { InvalidOptionError, RatewiseError } from '../errors.js';
import { choiceOption, numberOption, rejectUnknownOptions } from '../options.js';
import type { ControlEvent, EventSink } from './event.js';

/** An event sink that buffers, with a way to push its buffer out and to shut it. */
export type BufferedSink = EventSink & {
  /** Writes every event received so far and resolves once it is on disk (or accepted by the stream). */
  flush(): Promise<void>;
  /** Flushes, then closes the target. Later events are dropped and reported. Idempotent. */
  close(): Promise<void>;
};

/** Options of {@link jsonlSink}. */
export interface JsonlSinkOptions {
  /**
   * For a path target: `append` keeps what the file holds and adds to it,
   * `truncate` starts the file empty. Not allowed for a stream target.
   * @default 'append'
   */
  mode?: 'append' | 'truncate';
  /**
   * Characters of JSON buffered before a write is issued. Only one write is in
   * flight at a time; events arriving meanwhile are buffered (never dropped), which
   * is how a slow target pushes back. An integer ≥ 0.
   * @default 65536
   */
  bufferSize?: number;
  /**
   * For a stream target: whether `close()` ends the stream. Pass `false` for a
   * stream you keep using, such as `process.stdout`. A path target is always closed.
   * @default true
   */
  end?: boolean;
  /**
   * Called once, with the first failure: a write error, an event that cannot be
   * serialised, or an event after `close()`. `flush()`/`close()` also reject with
   * a write error.
   * @default a one-time `process.emitWarning`
   */
  onError?: (error: unknown) => void;
}

const OWNER = 'jsonlSink';
const KNOWN: readonly (keyof JsonlSinkOptions)[] = ['mode', 'bufferSize', 'end', 'onError'];

/** Where the serialised batches go. */
interface Output {
  write(data: string): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * An event sink writing one JSON object per line (JSONL) to a file or a stream.
 * Lines are batched, so hundreds of thousands of events cost a few hundred
 * writes. A path's parent directories are created, and the file is opened at
 * construction so a bad path fails here, with the OS error. The last partial
 * batch stays in memory until `flush()` or `close()`.
 */
export function jsonlSink(target: string | Writable, options: JsonlSinkOptions = {}): BufferedSink {
  rejectUnknownOptions(OWNER, options, KNOWN);
  const bufferSize = numberOption(OWNER, 'bufferSize', options.bufferSize, 65_536, {
    min: 0,
    integer: true,
  });
  const onError = functionOption(options.onError) ?? warnOnce;
  if (typeof target === 'string') {
    const mode = choiceOption(OWNER, 'mode', options.mode, 'append', ['append', 'truncate']);
    if (options.end !== undefined) throw notForTarget('end', options.end, 'a stream');
    return new LineBatcher(fileOutput(target, mode), bufferSize, onError).sink();
  }
  if (options.mode !== undefined) throw notForTarget('mode', options.mode, 'a path');
  if (options.end !== undefined && typeof options.end !== 'boolean') {
    throw InvalidOptionError.invalid(OWNER, 'end', options.end, 'a boolean');
  }
  return new LineBatcher(streamOutput(target, options.end ?? true), bufferSize, onError).sink();
}

/** Buffers lines and keeps at most one write in flight. */
class LineBatcher {
  #chunks: string[] = [];
  #size = 0;
  /** Lines received, and lines whose write completed: `flush()` waits for the one to reach the other. */
  #received = 0;
  #written = 0;
  #inFlight: Promise<void> | undefined;
  #failure: unknown;
  #reported = false;
  #closing: Promise<void> | undefined;

  constructor(
    private readonly output: Output,
    private readonly bufferSize: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  sink(): BufferedSink {
    return Object.assign((event: ControlEvent) => this.push(event), {
      flush: () => this.flush(),
      close: () => this.close(),
    });
  }

  push(event: ControlEvent): void {
    if (this.#closing !== undefined || this.#failure !== undefined) {
      this.#report(
        this.#failure ??
          new RatewiseError('ERR_RATEWISE_SINK_CLOSED', `${OWNER}: event after close()`),
      );
      return;
    }
    let line: string;
    try {
      line = `${JSON.stringify(event)}\n`;
    } catch (error) {
      this.#report(error);
      return;
    }
    this.#chunks.push(line);
    this.#size += line.length;
    this.#received += 1;
    if (this.#size >= this.bufferSize) this.#pump();
  }

  async flush(): Promise<void> {
    const target = this.#received;
    while (this.#written < target && this.#failure === undefined) {
      if (this.#inFlight === undefined) this.#pump();
      await this.#inFlight;
    }
    if (this.#failure !== undefined) throw this.#failure;
    await this.output.sync();
  }

  close(): Promise<void> {
    this.#closing ??= this.#shut();
    return this.#closing;
  }

  /** Flushes and closes the output; a flush failure wins over a close failure. */
  async #shut(): Promise<void> {
    const flushed = await this.flush().then(
      () => ({ ok: true as const }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    const closing = this.output.close();
    if (!flushed.ok) {
      await closing.catch(() => {});
      throw flushed.error;
    }
    await closing;
  }

  #pump(): void {
    if (this.#inFlight !== undefined || this.#chunks.length === 0) return;
    const data = this.#chunks.join('');
    const lines = this.#chunks.length;
    this.#chunks = [];
    this.#size = 0;
    this.#inFlight = this.output.write(data).then(
      () => {
        this.#inFlight = undefined;
        this.#written += lines;
        if (this.#size >= this.bufferSize) this.#pump();
      },
      (error: unknown) => {
        this.#inFlight = undefined;
        this.#failure = error;
        this.#report(error);
      },
    );
  }

  #report(error: unknown): void {
    if (this.#reported) return;
    this.#reported = true;
    this.onError(error);
  }
}

function fileOutput(path: string, mode: 'append' | 'truncate'): Output {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, mode === 'append' ? 'a' : 'w');
  return {
    write: (data) => settle((done) => writeFile(fd, data, done)),
    sync: () => settle((done) => fsync(fd, done)),
    close: () => settle((done) => close(fd, done)),
  };
}

function streamOutput(stream: Writable, end: boolean): Output {
  // Errors also reach the write callbacks; this listener only keeps them from crashing the
  // process. It is removed on close, so a stream reused by many sinks (stdout) collects none.
  const ignore = (): void => {};
  stream.on('error', ignore);
  return {
    write: (data) => settle((done) => stream.write(data, done)),
    sync: () => Promise.resolve(),
    close: async () => {
      if (end && !stream.destroyed) await settle((done) => stream.end(done));
      stream.off('error', ignore);
    },
  };
}

/** Turns a Node-style callback operation into a promise. */
function settle(start: (done: (error?: Error | null) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    start((error) => (error ? reject(error) : resolve()));
  });
}

function functionOption(value: unknown): ((error: unknown) => void) | undefined {
  if (value === undefined || typeof value === 'function')
    return value as ((error: unknown) => void) | undefined;
  throw InvalidOptionError.invalid(OWNER, 'onError', value, 'a function');
}

function notForTarget(option: string, value: unknown, target: string): InvalidOptionError {
  return InvalidOptionError.invalid(
    OWNER,
    option,
    value,
    `left unset unless the target is ${target}`,
  );
}

function warnOnce(error: unknown): void {
  process.emitWarning(`${OWNER}: ${error instanceof Error ? error.message : String(error)}`);
}
