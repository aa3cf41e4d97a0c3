import type { CancelTimer, Clock } from '../clock.js';
import { SinkClosedError } from '../errors.js';
import type { ControlEvent } from './event.js';
import type { RunStart } from './run-start.js';
import { type UnwrittenCount, unwatch, watchUnwritten } from './unwritten-watch.js';

/** Where the serialised batches go. */
export interface Output {
  write(data: string): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** How a {@link LineBatcher} batches. */
export interface BatchSettings {
  /** Characters buffered before a write is issued. */
  bufferSize: number;
  /** Longest a line waits in the buffer before a write is issued, ms (`Infinity`: no timer). */
  flushIntervalMs: number;
  /** Arms the flush timer. */
  clock: Pick<Clock, 'setTimer'>;
  /** Written before the first event, when given. */
  header: RunStart | undefined;
  /** Receives the first failure. */
  onError: (error: unknown) => void;
  /** Names the sink in errors and warnings, e.g. `jsonlSink(events.jsonl)`. */
  label: string;
}

/**
 * Buffers JSON lines and keeps at most one write in flight. A write goes out
 * when the buffer reaches `bufferSize`, when the oldest buffered line has
 * waited `flushIntervalMs`, and on `flush()`/`close()`. Until it is closed,
 * the batcher is watched: exiting or being garbage-collected with lines
 * still unwritten prints a warning.
 */
export class LineBatcher {
  #chunks: string[] = [];
  #size = 0;
  /** Lines received, and lines whose write completed: `flush()` waits for the one to reach the other. */
  #received = 0;
  #written = 0;
  /** Events (not the header) in the buffer. */
  #bufferedEvents = 0;
  #inFlight: Promise<void> | undefined;
  #failure: unknown;
  #reported = false;
  #closing: Promise<void> | undefined;
  #timer: CancelTimer | undefined;
  #header: RunStart | undefined;
  readonly #unwritten: UnwrittenCount;

  constructor(
    private readonly output: Output,
    private readonly settings: BatchSettings,
  ) {
    this.#header = settings.header;
    this.#unwritten = { label: settings.label, unwritten: 0 };
    watchUnwritten(this, this.#unwritten);
  }

  push(event: ControlEvent): void {
    if (this.#closing !== undefined || this.#failure !== undefined) {
      this.#report(
        this.#failure ?? new SinkClosedError(`${this.settings.label}: event after close()`),
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
    if (this.#header) {
      this.#buffer(`${JSON.stringify(this.#header)}\n`);
      this.#header = undefined;
    }
    this.#buffer(line);
    this.#bufferedEvents++;
    this.#unwritten.unwritten++;
    if (this.#size >= this.settings.bufferSize) this.#pump();
    else this.#armTimer();
  }

  /** Writes what was received so far; after `close()`, waits for the close instead. */
  flush(): Promise<void> {
    return this.#closing ?? this.#drain();
  }

  async #drain(): Promise<void> {
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
    const flushed = await this.#drain().then(
      () => ({ ok: true as const }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    this.#cancelTimer();
    unwatch(this.#unwritten);
    const closing = this.output.close();
    if (!flushed.ok) {
      await closing.catch(() => {});
      throw flushed.error;
    }
    await closing;
  }

  #buffer(line: string): void {
    this.#chunks.push(line);
    this.#size += line.length;
    this.#received += 1;
  }

  #armTimer(): void {
    const { flushIntervalMs, clock } = this.settings;
    if (this.#timer !== undefined || !Number.isFinite(flushIntervalMs)) return;
    this.#timer = clock.setTimer(flushIntervalMs, () => {
      this.#timer = undefined;
      this.#pump();
    });
  }

  #cancelTimer(): void {
    this.#timer?.();
    this.#timer = undefined;
  }

  #pump(): void {
    if (this.#inFlight !== undefined || this.#chunks.length === 0) return;
    this.#cancelTimer();
    const data = this.#chunks.join('');
    const lines = this.#chunks.length;
    const events = this.#bufferedEvents;
    this.#chunks = [];
    this.#size = 0;
    this.#bufferedEvents = 0;
    this.#inFlight = this.output.write(data).then(
      () => {
        this.#inFlight = undefined;
        this.#written += lines;
        this.#unwritten.unwritten -= events;
        if (this.#size >= this.settings.bufferSize) this.#pump();
        else if (this.#chunks.length > 0) this.#armTimer();
      },
      (error: unknown) => {
        this.#inFlight = undefined;
        this.#failure = error;
        unwatch(this.#unwritten); // reported here, not again at exit
        this.#report(error);
      },
    );
  }

  #report(error: unknown): void {
    if (this.#reported) return;
    this.#reported = true;
    this.settings.onError(error);
  }
}
