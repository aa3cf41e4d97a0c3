import type { IncomingHttpHeaders } from 'node:http';
import { redactUrl } from '../util/redact.js';
import { type DecoderChain, decoderChain } from './content-decoding.js';
import { decodedStream, ignoreClosed } from './decoded-stream.js';
import type { ResponseTap } from './response-tap.js';

/** Statuses whose response has no body, per the fetch standard. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
/** Bytes queued in the web stream before the download pauses… */
const HIGH_WATER_BYTES = 262_144;
/**
 * …and at most this many still queued before it resumes. A download paused
 * and resumed for every chunk costs undici a copy of all it has buffered
 * (it reads the socket's whole buffer and puts back what it does not parse),
 * so a reader slower than the network — a disk — made saving a body
 * quadratic (60 MB in 16 KiB chunks: 62 s). Resuming only once the reader
 * has taken most of the queue lets a lot through per pause.
 */
const LOW_WATER_BYTES = 65_536;

/**
 * Paused downloads whose `Response` may be dropped with its body untouched:
 * when the garbage collector takes the Response, the download is cancelled
 * (as undici's `fetch` does), so its request gives its place back instead of
 * holding it, paused, for good.
 */
const unread = new FinalizationRegistry(cancelUnread);

/** Cancels the download of a dropped `Response`, unless its body is being read. */
function cancelUnread({ tap, body }: { tap: ResponseTap; body: ReadableStream }): void {
  if (!body.locked) tap.abort(new DOMException('response body dropped unread', 'AbortError'));
}

/**
 * Has the download cancelled if `response` is garbage-collected before its
 * body is touched. Only a body that may not fit the queue needs it (one that
 * does completes, and frees its place, unread); it is registered only once
 * the download pauses for its reader, so such a response costs a `WeakRef`
 * (which keeps it past the young generation: ~3 µs), not a finalizer.
 */
function cancelIfDropped(tap: ResponseTap, body: ReadableStream, response: Response): void {
  const declared = Number(tap.headers['content-length']);
  if (declared < HIGH_WATER_BYTES) return;
  const dropped = new WeakRef(response);
  tap.onPause = () => {
    tap.onPause = undefined;
    const target = dropped.deref();
    if (target) unread.register(target, { tap, body });
    else cancelUnread({ tap, body }); // collected before the download paused
  };
}

/**
 * Turns an attempt's head into a standard `Response` whose body streams from
 * the tap with backpressure; cancelling the body aborts the download. The
 * answer to a HEAD, and a null-body status (204, 304…), has a `null` body. `url`
 * becomes `response.url`, and `redirected` is set when redirects were followed.
 * A compressed body is decoded as fetch decodes it (`Content-Encoding` gzip,
 * deflate, br; zstd where Node has it), its decoded size capped at
 * `maxBodyBytes`; its headers stay as the server sent them, as with fetch.
 * A body dropped unread is cancelled once its Response is garbage-collected.
 */
export function toWebResponse(
  tap: ResponseTap,
  url: string,
  redirected: boolean,
  maxBodyBytes: number,
): Response {
  const init = { status: tap.status, statusText: tap.statusText, headers: toHeaders(tap.headers) };
  const bodyless =
    tap.bodiless || NULL_BODY.has(tap.status) || (tap.finished && tap.timings().bytes === 0);
  let chain: DecoderChain | undefined;
  try {
    chain = bodyless ? undefined : decoderChain(tap.status, tap.headers, false);
  } catch (error) {
    tap.discard();
    throw new TypeError(`${redactUrl(url)}: ${(error as Error).message}`, { cause: error });
  }
  const body = bodyless
    ? null
    : chain
      ? decodedStream(tap, chain, maxBodyBytes, url)
      : bodyStream(tap);
  let response: Response;
  try {
    response = new Response(body, init);
  } catch (error) {
    tap.discard();
    throw new TypeError(
      `${redactUrl(url)}: status ${tap.status} cannot be returned as a fetch Response`,
      {
        cause: error,
      },
    );
  }
  if (bodyless) tap.discard();
  else if (body && !tap.finished) cancelIfDropped(tap, body, response);
  Object.defineProperty(response, 'url', { value: url });
  if (redirected) Object.defineProperty(response, 'redirected', { value: true });
  return response;
}

function bodyStream(tap: ResponseTap): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        tap.consume({
          data(chunk) {
            controller.enqueue(chunk);
            return (controller.desiredSize ?? 0) > 0;
          },
          // A cancelled stream refuses further calls; the tap stops on its own.
          end: () => ignoreClosed(() => controller.close()),
          error: (error) => ignoreClosed(() => controller.error(error)),
        });
      },
      pull(controller) {
        const queued = HIGH_WATER_BYTES - (controller.desiredSize ?? 0);
        if (queued <= LOW_WATER_BYTES) tap.resume();
      },
      cancel(reason) {
        tap.abort(
          reason instanceof Error ? reason : new DOMException('body cancelled', 'AbortError'),
        );
      },
    },
    { highWaterMark: HIGH_WATER_BYTES, size: (chunk) => chunk.byteLength },
  );
}

/** undici's parsed headers as a WHATWG `Headers`. */
export function toHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.append(name, value);
  }
  return headers;
}
