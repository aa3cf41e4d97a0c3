/** Where a response body goes once someone wants it. */
export interface BodySink {
  /** One chunk; return `false` to pause the download until the sink asks to resume. */
  data(chunk: Buffer): boolean;
  /** The body is complete. */
  end(): void;
  /** The download failed (or was cancelled). */
  error(error: unknown): void;
}

/** How an exchange finished: `error` is unset for a complete body. */
export interface TapEnd {
  error?: unknown;
}

/** Body bytes buffered while nobody reads before the download is paused. */
const BUFFER_BYTES = 65_536;

/**
 * The body of one exchange: chunks are buffered until a sink takes them (up to
 * 64 KiB, then the download should pause), after which they stream straight
 * to the sink with its backpressure. The end (or failure) reaches the sink
 * whenever it attaches.
 */
export class TapBody {
  #buffered: Buffer[] = [];
  #bufferedBytes = 0;
  #sink: BodySink | undefined;
  #end: TapEnd | undefined;

  /** Bytes waiting for a sink. */
  get bufferedBytes(): number {
    return this.#bufferedBytes;
  }

  /** Whether a sink has taken the body. */
  get taken(): boolean {
    return this.#sink !== undefined;
  }

  /** The first `bytes` of the buffered body as text. */
  prefix(bytes: number): string {
    return Buffer.concat(this.#buffered).toString('utf8', 0, bytes);
  }

  /** A chunk arrived; `false` when the download should pause. */
  push(chunk: Buffer): boolean {
    if (this.#sink) return this.#sink.data(chunk);
    this.#buffered.push(chunk);
    this.#bufferedBytes += chunk.length;
    return this.#bufferedBytes < BUFFER_BYTES;
  }

  /** The exchange is over; tells the sink, now or when it attaches. */
  end(end: TapEnd): void {
    this.#end = end;
    if (this.#sink) deliverEnd(this.#sink, end);
  }

  /**
   * Hands the body to `sink`: the buffered chunks at once, then the rest.
   * Returns whether the download may flow (the caller resumes it).
   */
  take(sink: BodySink): boolean {
    this.#sink = sink;
    const buffered = this.#buffered;
    this.#buffered = [];
    this.#bufferedBytes = 0;
    let flowing = true;
    for (const chunk of buffered) flowing = sink.data(chunk) && flowing;
    if (this.#end) deliverEnd(sink, this.#end);
    return flowing;
  }
}

/** A sink that throws the chunks away, calling `tooLong` (for each chunk) past `limit` bytes. */
export function drainSink(limit: number, tooLong: () => void): BodySink {
  let drained = 0;
  return {
    data(chunk) {
      drained += chunk.length;
      if (drained > limit) tooLong();
      return true;
    },
    end() {},
    error() {},
  };
}

function deliverEnd(sink: BodySink, end: TapEnd): void {
  if (end.error === undefined) sink.end();
  else sink.error(end.error);
}
