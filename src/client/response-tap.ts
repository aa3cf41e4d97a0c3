import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { ResponseTooLargeError } from '../errors.js';
import type { PhaseTimings } from '../timings.js';
import { AttemptGuard, type AttemptGuards } from './attempt-guards.js';
import { claimConnectionMarks, expectSocket } from './connection-timings.js';
import { PhaseMarks } from './phase-marks.js';
import { type BodySink, drainSink, TapBody, type TapEnd } from './tap-body.js';

/** What one attempt needs to know. */
export interface TapSettings extends AttemptGuards {
  /** The request method: a `HEAD` response has no body, whatever its `Content-Length` says. */
  method: string;
  /** Larger bodies fail with {@link ResponseTooLargeError}. */
  maxBodyBytes: number;
  /** Whether a response with this status has its body prefix read before it is classified. */
  sniff(status: number): boolean;
}

/** Body prefix read for classification (block pages, rate-limit pages). */
const SNIFF_BYTES = 8192;
/** A discarded body longer than this closes its connection instead of being drained. */
const DRAIN_BYTES = 262_144;

/**
 * The undici dispatch handler of one attempt. It measures the phases
 * (handshakes through {@link expectSocket}, first byte, last byte, bytes),
 * enforces the size cap (not on responses that have no body: to a HEAD, a
 * 204 or a 304) and the attempt timeout (paused with the download), reads a bounded body prefix
 * for the classifier, and holds the body — paused, with backpressure — until
 * a consumer takes it ({@link consume}) or throws it away ({@link discard}).
 * `head` resolves once status and headers (and the sniffed prefix) are in.
 */
export class ResponseTap implements Dispatcher.DispatchHandler {
  /** HTTP status, once `head` resolved. */
  status = 0;
  /** Reason phrase. */
  statusText = '';
  /** Response headers as undici parsed them. */
  headers: IncomingHttpHeaders = {};
  /** Resolves with this tap when the response head is in; rejects when the attempt fails before. */
  readonly head: Promise<ResponseTap>;
  /** Called each time the download pauses because the body's reader is behind. */
  onPause: (() => void) | undefined;
  readonly #settings: TapSettings;
  readonly #marks: PhaseMarks;
  #resolveHead!: (tap: ResponseTap) => void;
  #rejectHead!: (error: unknown) => void;
  #headDone = false;
  #prefix: string | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  #pendingAbort: Error | undefined;
  readonly #body = new TapBody();
  #end: TapEnd | undefined;
  #onEnd: ((end: TapEnd) => void)[] = [];
  /** Set once the guards are armed; until then there is nothing to pause or disarm. */
  #guard: AttemptGuard | undefined;

  constructor(settings: TapSettings) {
    this.#settings = settings;
    this.#marks = new PhaseMarks(settings.clock);
    this.head = new Promise((resolve, reject) => {
      this.#resolveHead = resolve;
      this.#rejectHead = reject;
    });
    this.head.catch(() => {}); // the caller gets the rejection; never unhandled here
    this.#guard = new AttemptGuard(settings, (reason) => this.abort(reason));
  }

  /** The request URL. */
  get url(): string {
    return this.#settings.url;
  }

  /** Whether the exchange is over (body complete, failed or cancelled). */
  get finished(): boolean {
    return this.#end !== undefined;
  }

  /**
   * Whether this response has no body by HTTP's rules: the answer to a HEAD,
   * an informational response, a 204 or a 304 (their `Content-Length`
   * describes the resource, not bytes to come). Known once `head` resolved.
   */
  get bodiless(): boolean {
    return (
      this.#settings.method === 'HEAD' ||
      this.status < 200 ||
      this.status === 204 ||
      this.status === 304
    );
  }

  /** The sniffed body prefix as text, when this status is sniffed. */
  get prefix(): string | undefined {
    return this.#prefix;
  }

  /** Phase timings so far; final once the exchange is over (see {@link PhaseMarks}). */
  timings(): PhaseTimings {
    return this.#marks.timings();
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    expectSocket((socket) => {
      this.#marks.connected(claimConnectionMarks(socket));
    });
    if (this.#pendingAbort) controller.abort(this.#pendingAbort);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    status: number,
    headers: IncomingHttpHeaders,
    statusMessage?: string,
  ): void {
    if (status < 200 && status !== 101) return; // informational; the real head follows
    this.#marks.firstByte();
    this.status = status;
    this.statusText = statusMessage ?? '';
    this.headers = headers;
    const declared = Number(headers['content-length']);
    if (!this.bodiless && declared > this.#settings.maxBodyBytes) {
      this.abort(
        new ResponseTooLargeError(this.#settings.url, this.#settings.maxBodyBytes, declared),
      );
      return;
    }
    if (!this.#settings.sniff(status)) this.#releaseHead();
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#marks.bytes += chunk.length;
    const { bytes } = this.#marks;
    if (bytes > this.#settings.maxBodyBytes) {
      const { url, maxBodyBytes } = this.#settings;
      this.abort(new ResponseTooLargeError(url, maxBodyBytes, bytes));
      return;
    }
    const flowing = this.#body.push(chunk);
    if (!this.#headDone && this.#body.bufferedBytes >= SNIFF_BYTES) this.#releaseHead();
    if (!flowing) this.#pause(controller);
  }

  onResponseEnd(): void {
    this.#releaseHead();
    this.#finish({});
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    const reason = this.#pendingAbort ?? error;
    if (!this.#headDone) {
      this.#headDone = true;
      this.#rejectHead(reason);
    }
    this.#finish({ error: reason });
  }

  /** Ends the exchange with `reason` (before or after the head). Does nothing once it is over. */
  abort(reason: Error): void {
    if (this.#end !== undefined || this.#pendingAbort !== undefined) return;
    this.#pendingAbort = reason;
    if (this.#controller) {
      this.#controller.abort(reason);
      return;
    }
    // Not started yet (queued for a connection): fail now; undici drops it when it starts.
    this.onResponseError(undefined, reason);
  }

  /** Streams the body to `sink`: what was buffered first, then the rest as it arrives. */
  consume(sink: BodySink): void {
    if (this.#body.take(sink) && !this.#end) this.resume();
  }

  /** Resumes a paused download (and the attempt's timeout with it). */
  resume(): void {
    if (!this.#controller?.paused) return;
    this.#guard?.resume();
    this.#controller.resume();
  }

  /**
   * Throws the body away: drains a short one so the connection is reused,
   * closes the connection under a long one. Resolves when the exchange is over.
   */
  discard(): Promise<void> {
    const over = new Promise<void>((resolve) => this.onEnd(() => resolve()));
    const tooLong = () => this.abort(new DOMException('response body discarded', 'AbortError'));
    if (!this.#end && !this.#body.taken) this.consume(drainSink(DRAIN_BYTES, tooLong));
    return over;
  }

  /** Calls `listener` once when the exchange is over (at once if it already is). */
  onEnd(listener: (end: TapEnd) => void): void {
    if (this.#end) listener(this.#end);
    else this.#onEnd.push(listener);
  }

  /** Pauses the download for the reader; the timeout stands still meanwhile. */
  #pause(controller: Dispatcher.DispatchController): void {
    controller.pause();
    this.#guard?.pause();
    this.onPause?.();
  }

  #releaseHead(): void {
    if (this.#headDone) return;
    this.#headDone = true;
    if (this.#settings.sniff(this.status)) {
      this.#prefix = this.#body.prefix(SNIFF_BYTES);
    }
    this.#resolveHead(this);
  }

  #finish(end: TapEnd): void {
    if (this.#end) return;
    this.#end = end;
    this.#marks.ended();
    this.#guard?.disarm();
    this.#body.end(end);
    const listeners = this.#onEnd;
    this.#onEnd = [];
    for (const listener of listeners) listener(end);
  }
}
