import type { Transform } from 'node:stream';
import { ResponseTooLargeError } from '../errors.js';

/** A chunk waiting to be counted, or the end of the body. */
interface Pending {
  /** The first decoder has taken it (its write completed). */
  written: boolean;
  then: () => void;
}

/**
 * Measures what a compressed body decodes to without keeping any of it, for
 * the interceptor: the body is handed on as sent (undici's `fetch` decodes it
 * itself, `request` leaves it to you), but each chunk only once the meter has
 * decoded it within `maxBodyBytes`. Whatever decodes it downstream therefore
 * never sees the chunk that would take it past the cap: a decompression bomb
 * fails with a {@link ResponseTooLargeError} after `maxBodyBytes`, not after a
 * gigabyte. A body the meter cannot decode (corrupt, or a coding it does not
 * know) is handed on unmeasured: its decoder downstream will fail on it too.
 *
 * The decoders (one per coding, last applied first) are wired by hand rather
 * than piped, so that "decoded" is exact: a chunk counts once every decoder
 * is idle — no write in progress, nothing waiting to be read — so all it
 * decodes to, through every stage, has been counted. (Counting when the first
 * decoder had taken a chunk let `gzip, br` bodies through before the second
 * stage had decoded them: 60 wire bytes handed on decoded to 200,000.)
 */
export class DecodedMeter {
  readonly #stages: readonly [Transform, ...Transform[]];
  readonly #maxBodyBytes: number;
  readonly #url: string;
  readonly #onOver: (error: ResponseTooLargeError) => void;
  /** In write order; handed on from the front as they are counted. */
  readonly #pending: Pending[] = [];
  /** Writes to any stage not yet completed. */
  #writing = 0;
  #decoded = 0;
  #state: 'metering' | 'unmeasured' | 'over' = 'metering';

  /** `onOver` is called once, when the decoded size passes `maxBodyBytes`. */
  constructor(
    stages: readonly [Transform, ...Transform[]],
    maxBodyBytes: number,
    url: string,
    onOver: (error: ResponseTooLargeError) => void,
  ) {
    this.#stages = stages;
    this.#maxBodyBytes = maxBodyBytes;
    this.#url = url;
    this.#onOver = onOver;
    stages.forEach((stage, index) => {
      this.#wire(stage, stages[index + 1]);
    });
  }

  /** Counts `chunk`; `then` runs once it (and every chunk before it) decoded within the cap. */
  count(chunk: Buffer, then: () => void): void {
    const entry = this.#enqueue(then);
    if (this.#state !== 'metering') {
      entry.written = true;
      this.#handOn();
      return;
    }
    this.#write(this.#stages[0], chunk, entry);
  }

  /** The body is complete; `then` runs once all of it decoded within the cap. */
  end(then: () => void): void {
    const entry = this.#enqueue(then);
    if (this.#state !== 'metering') {
      entry.written = true;
      this.#handOn();
    } else this.#stages[0].end(); // the last stage's end counts it
  }

  /** Stops metering: nothing more is handed on (the exchange failed). */
  stop(): void {
    this.#state = 'over';
    this.#pending.length = 0;
    for (const stage of this.#stages) stage.destroy();
  }

  /** Feeds `stage`'s output to `next` with backpressure, or counts it at the last stage. */
  #wire(stage: Transform, next: Transform | undefined): void {
    stage.on('error', () => this.#giveUp());
    if (next === undefined) {
      stage.on('data', (chunk: Buffer) => this.#countDecoded(chunk.length));
      stage.on('end', () => this.#decodedAll());
      return;
    }
    stage.on('data', (chunk: Buffer) => {
      if (!this.#write(next, chunk)) stage.pause();
    });
    next.on('drain', () => stage.resume());
    stage.on('end', () => next.end());
  }

  #write(stage: Transform, chunk: Buffer, entry?: Pending): boolean {
    this.#writing++;
    return stage.write(chunk, (error) => {
      this.#writing--;
      if (error) {
        this.#giveUp();
        return;
      }
      if (entry) entry.written = true;
      this.#countIfIdle();
    });
  }

  #enqueue(then: () => void): Pending {
    const entry = { written: false, then };
    this.#pending.push(entry);
    return entry;
  }

  #countDecoded(bytes: number): void {
    if (this.#state !== 'metering') return;
    this.#decoded += bytes;
    if (this.#decoded > this.#maxBodyBytes) {
      this.stop();
      this.#onOver(new ResponseTooLargeError(this.#url, this.#maxBodyBytes, this.#decoded, true));
      return;
    }
    this.#countIfIdle();
  }

  /** Every written chunk is counted once no stage has anything left to decode or pass on. */
  #countIfIdle(): void {
    if (this.#state !== 'metering' || this.#writing > 0) return;
    if (this.#stages.some((stage) => stage.readableLength > 0)) return;
    this.#handOn();
  }

  /** The last stage ended: everything written decoded within the cap, the end included. */
  #decodedAll(): void {
    if (this.#state !== 'metering') return;
    for (const entry of this.#pending) entry.written = true;
    this.#handOn();
  }

  /** The meter cannot decode this body: everything goes on unmeasured. */
  #giveUp(): void {
    if (this.#state !== 'metering') return;
    this.#state = 'unmeasured';
    for (const stage of this.#stages) stage.destroy();
    for (const entry of this.#pending) entry.written = true;
    this.#handOn();
  }

  #handOn(): void {
    while (this.#pending[0]?.written && this.#state !== 'over') this.#pending.shift()?.then();
  }
}
