import { close, fsync, mkdirSync, openSync, writeFile } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Writable } from 'node:stream';
import { type Clock, systemClock } from '../clock.js';
import { InvalidOptionError } from '../errors.js';
import { check, choice, flag, func, hasMethods, isBoolean, number } from '../option-rules.js';
import { defineOptions, type OptionsOf } from '../option-spec.js';
import type { ControlEvent, EventSink } from './event.js';
import { LineBatcher, type Output } from './line-batcher.js';
import { runStart } from './run-start.js';

/** An event sink that buffers, with a way to push its buffer out and to shut it. */
export type BufferedSink = EventSink & {
  /** Writes every event received so far and resolves once it is on disk (or accepted by the stream). */
  flush(): Promise<void>;
  /** Flushes, then closes the target. Later events are dropped and reported. Idempotent. */
  close(): Promise<void>;
};

const OWNER = 'jsonlSink';
const readOptions = defineOptions(OWNER, {
  /**
   * For a path target: `append` keeps what the file holds and adds to it,
   * `truncate` starts the file empty. Not allowed for a stream target.
   * @default 'append'
   */
  mode: choice(undefined, ['append', 'truncate']),
  /**
   * Characters of JSON buffered before a write is issued. Only one write is in
   * flight at a time; events arriving meanwhile are buffered (never dropped), which
   * is how a slow target pushes back. An integer ≥ 0.
   * @default 65536
   */
  bufferSize: number(65_536, { min: 0, integer: true }),
  /**
   * Longest an event waits in memory before a write is issued, ms, so a slow
   * run's log grows as it goes and a killed process loses at most this much.
   * A pending write keeps the process alive until it is issued. `Infinity`
   * writes only when `bufferSize` is reached and on `flush()`/`close()`.
   * @default 1000
   */
  flushIntervalMs: number(1000, { above: 0, infinite: true }),
  /**
   * Whether the first line (written with the first event) is a {@link RunStart}
   * record — `{"type":"run","run":…,"t":…,"wall":…}` — marking where this run
   * begins in a log that several runs append to. `ratewise analyze` and
   * `report` use it to place each run on the wall clock.
   * @default true
   */
  runStart: flag(true),
  /** Times the flush interval and the run start. @default systemClock */
  clock: check('a Clock', hasMethods<Clock>('setTimer', 'wallNow'), systemClock),
  /**
   * For a stream target: whether `close()` ends the stream. Pass `false` for a
   * stream you keep using, such as `process.stdout`. A path target is always closed.
   * @default true
   */
  end: check('a boolean', isBoolean),
  /**
   * Called once, with the first failure: a write error, an event that cannot be
   * serialised, or an event after `close()`. `flush()`/`close()` also reject with
   * a write error.
   * @default a one-time `process.emitWarning`
   */
  onError: func<(error: unknown) => void>(warnOnce),
});

/** Options of {@link jsonlSink}. */
export interface JsonlSinkOptions extends OptionsOf<typeof readOptions> {}

/**
 * An event sink writing one JSON object per line (JSONL) to a file or a stream.
 * Lines are batched, so hundreds of thousands of events cost a few hundred
 * writes; a batch goes out when it reaches `bufferSize`, at the latest
 * `flushIntervalMs` after its first event, and on `flush()`/`close()`. The
 * first line marks the run's start ({@link RunStart}). A path's parent
 * directories are created, and the file is opened at construction so a bad
 * path fails here, with the OS error. Close the sink (or flush it) before
 * the process exits — `client.close()` flushes the sink it was given — or
 * the events still in memory are lost, with a warning on stderr (also when
 * an unclosed sink holding events is garbage-collected).
 *
 * ```ts
 * const events = jsonlSink('events.jsonl');
 * const client = createClient({ events });
 * // … client.fetch(…) …
 * await client.close();
 * await events.close();
 * ```
 */
export function jsonlSink(target: string | Writable, options: JsonlSinkOptions = {}): BufferedSink {
  const { mode, end, runStart: marked, ...base } = readOptions(options);
  const batch = { ...base, header: marked ? runStart(base.clock) : undefined };
  if (typeof target === 'string') {
    if (end !== undefined) throw notForTarget('end', end, 'a stream');
    const settings = { ...batch, label: `${OWNER}(${basename(target)})` };
    return sinkOf(new LineBatcher(fileOutput(target, mode ?? 'append'), settings));
  }
  if (mode !== undefined) throw notForTarget('mode', mode, 'a path');
  const output = streamOutput(target, end ?? true);
  return sinkOf(new LineBatcher(output, { ...batch, label: `${OWNER}(stream)` }));
}

function sinkOf(batcher: LineBatcher): BufferedSink {
  return Object.assign((event: ControlEvent) => batcher.push(event), {
    flush: () => batcher.flush(),
    close: () => batcher.close(),
  });
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
