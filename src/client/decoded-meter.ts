import { ResponseTooLargeError } from '../errors.js';
import type { DecoderChain } from './content-decoding.js';

/** A chunk waiting to be counted, or the end of the body. */
interface Pending {
  counted: boolean;
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
 */
export class DecodedMeter {
  readonly #chain: DecoderChain;
  readonly #maxBodyBytes: number;
  readonly #url: string;
  readonly #onOver: (error: ResponseTooLargeError) => void;
  /** In write order; handed on from the front as they are counted. */
  readonly #pending: Pending[] = [];
  #decoded = 0;
  #state: 'metering' | 'unmeasured' | 'over' = 'metering';

  /** `onOver` is called once, when the decoded size passes `maxBodyBytes`. */
  constructor(
    chain: DecoderChain,
    maxBodyBytes: number,
    url: string,
    onOver: (error: ResponseTooLargeError) => void,
  ) {
    this.#chain = chain;
    this.#maxBodyBytes = maxBodyBytes;
    this.#url = url;
    this.#onOver = onOver;
    chain.output.on('data', (chunk: Buffer) => this.#countDecoded(chunk.length));
    chain.output.on('error', () => this.#giveUp());
    chain.output.on('end', () => this.#settle(this.#pending.at(-1)));
  }

  /** Counts `chunk`; `then` runs once it (and every chunk before it) decoded within the cap. */
  count(chunk: Buffer, then: () => void): void {
    const entry = this.#enqueue(then);
    if (this.#state !== 'metering') {
      this.#settle(entry);
      return;
    }
    this.#chain.input.write(chunk, (error) => {
      if (error) this.#giveUp();
      else this.#settle(entry);
    });
  }

  /** The body is complete; `then` runs once all of it decoded within the cap. */
  end(then: () => void): void {
    const entry = this.#enqueue(then);
    if (this.#state !== 'metering') this.#settle(entry);
    else this.#chain.input.end(); // its last bytes are counted by the time the output ends
  }

  /** Stops metering: nothing more is handed on (the exchange failed). */
  stop(): void {
    this.#state = 'over';
    this.#pending.length = 0;
    this.#chain.output.destroy();
  }

  #enqueue(then: () => void): Pending {
    const entry = { counted: false, then };
    this.#pending.push(entry);
    return entry;
  }

  #countDecoded(bytes: number): void {
    if (this.#state !== 'metering') return;
    this.#decoded += bytes;
    if (this.#decoded <= this.#maxBodyBytes) return;
    this.stop();
    this.#onOver(new ResponseTooLargeError(this.#url, this.#maxBodyBytes, this.#decoded, true));
  }

  /** The meter cannot decode this body: everything goes on unmeasured. */
  #giveUp(): void {
    if (this.#state !== 'metering') return;
    this.#state = 'unmeasured';
    for (const entry of this.#pending) entry.counted = true;
    this.#handOn();
  }

  #settle(entry: Pending | undefined): void {
    if (entry === undefined || this.#state === 'over') return;
    entry.counted = true;
    this.#handOn();
  }

  #handOn(): void {
    while (this.#pending[0]?.counted && this.#state !== 'over') this.#pending.shift()?.then();
  }
}
