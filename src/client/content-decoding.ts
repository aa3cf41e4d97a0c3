import type { IncomingHttpHeaders } from 'node:http';
import { pipeline, Transform } from 'node:stream';
import * as zlib from 'node:zlib';

/** More codings than this is an attack (as in undici, urllib3 and curl). */
const MAX_CODINGS = 5;

/** Statuses whose response has no body to decode. */
const NO_BODY = new Set([101, 204, 205, 304]);

/** Lenient flushing, as undici's fetch and curl decode: a slightly broken tail is still read. */
const ZLIB_LENIENT = {
  flush: zlib.constants.Z_SYNC_FLUSH,
  finishFlush: zlib.constants.Z_SYNC_FLUSH,
};
const BROTLI_LENIENT = {
  flush: zlib.constants.BROTLI_OPERATION_FLUSH,
  finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
};

/** zstd, where this Node has it (22.15 and later). */
const createZstd = (zlib as { createZstdDecompress?: () => Transform }).createZstdDecompress;

/** A chain of decoders: write the wire bytes to `input`, read the decoded ones from `output`. */
export interface DecoderChain {
  input: Transform;
  output: Transform;
}

function decoder(coding: string): Transform | undefined {
  if (coding === 'gzip' || coding === 'x-gzip') return zlib.createGunzip(ZLIB_LENIENT);
  if (coding === 'deflate') return inflateEither();
  if (coding === 'br') return zlib.createBrotliDecompress(BROTLI_LENIENT);
  if (coding === 'zstd' && createZstd) return createZstd();
  return undefined;
}

/**
 * `deflate` as servers send it: a zlib stream, or (often) a raw deflate stream,
 * told apart by the first byte as undici's fetch does. It ends when the
 * deflate stream does, as undici's does: bytes a server sends after it are
 * ignored (waiting for the inner stream to end a second time hung the body
 * for good). Backpressure passes through: the inner inflater pauses while
 * nobody reads, so a deflate bomb waits instead of filling memory.
 */
class InflateEither extends Transform {
  #inner: Transform | undefined;
  #innerEnded = false;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    if (this.#inner === undefined && chunk.length > 0) {
      this.#inner = this.#start((chunk[0] ?? 0) % 16 === 8);
    }
    if (this.#inner === undefined) callback();
    else this.#inner.write(chunk, callback);
  }

  override _flush(callback: () => void): void {
    if (this.#inner === undefined || this.#innerEnded) {
      callback();
      return;
    }
    this.#inner.once('end', () => callback());
    this.#inner.end();
  }

  override _read(size: number): void {
    if (this.#inner?.isPaused()) this.#inner.resume();
    super._read(size);
  }

  #start(zlibFormat: boolean): Transform {
    const inner = zlibFormat
      ? zlib.createInflate(ZLIB_LENIENT)
      : zlib.createInflateRaw(ZLIB_LENIENT);
    inner.on('data', (data: Buffer) => {
      if (!this.push(data)) inner.pause();
    });
    inner.on('end', () => {
      this.#innerEnded = true;
      this.push(null);
    });
    inner.on('error', (error) => this.destroy(error));
    return inner;
  }
}

function inflateEither(): Transform {
  return new InflateEither();
}

/**
 * The decoders a response needs, as undici's `fetch` chooses them: for each
 * coding of `Content-Encoding`, last applied first — gzip (x-gzip), deflate,
 * br, and zstd where Node has it. `undefined` when nothing is to be decoded:
 * no coding, a coding it does not know (the body is then passed on as sent),
 * or a response without a body (`bodiless`: the answer to a HEAD, a 204…).
 * More than five codings is an error. They are not connected: see
 * {@link decoderChain}.
 */
export function decoders(
  status: number,
  headers: IncomingHttpHeaders,
  bodiless: boolean,
): [Transform, ...Transform[]] | undefined {
  const header = headers['content-encoding'];
  if (header === undefined || bodiless || NO_BODY.has(status)) return undefined;
  const codings = String(header).toLowerCase().split(',');
  if (codings.length > MAX_CODINGS) {
    throw new TypeError(
      `too many content-encodings in response: ${codings.length}, at most ${MAX_CODINGS}`,
    );
  }
  const stages: Transform[] = [];
  for (const coding of codings.reverse()) {
    const next = decoder(coding.trim());
    if (next === undefined) return undefined;
    stages.push(next);
  }
  return stages as [Transform, ...Transform[]];
}

/** {@link decoders}, piped into one chain. */
export function decoderChain(
  status: number,
  headers: IncomingHttpHeaders,
  bodiless: boolean,
): DecoderChain | undefined {
  const stages = decoders(status, headers, bodiless);
  if (stages === undefined) return undefined;
  const [input, ...rest] = stages;
  if (rest.length === 0) return { input, output: input };
  const output = pipeline(input, ...(rest as [Transform]), () => {}) as Transform;
  return { input, output };
}
