import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createBrotliCompress, createDeflate, createGzip } from 'node:zlib';

/** What a hostile route is given besides the exchange. */
export interface RouteContext {
  /** The request's query parameters. */
  query: URLSearchParams;
  /** Server time, ms since the server started (from its clock). */
  elapsedMs(): number;
}

/** One attack: answers (or refuses to answer) a request. */
export type HostileRoute = (
  req: IncomingMessage,
  res: ServerResponse,
  context: RouteContext,
) => void;

/** Bytes written per chunk of a generated body, unless `chunk` says otherwise. */
const CHUNK_BYTES = 16_384;

/** A number query parameter, or `fallback` when it is missing or not a finite number >= 0. */
function count(query: URLSearchParams, name: string, fallback: number): number {
  const value = Number(query.get(name) ?? Number.NaN);
  return Number.isFinite(value) && value >= 0 ? value : fallback;
}

/** `bytes` zero bytes (endless without a limit), in `chunk`-byte pieces, read on demand. */
function zeros(bytes: number, chunk: number): Readable {
  const piece = Buffer.alloc(Math.max(1, chunk));
  let left = bytes;
  return new Readable({
    read() {
      if (left <= 0) {
        this.push(null);
        return;
      }
      const size = Math.min(piece.length, left);
      left -= size;
      this.push(size === piece.length ? piece : piece.subarray(0, size));
    },
  });
}

/** A compressing stream for a `Content-Encoding`, fast settings (a bomb is made per request). */
function compressor(encoding: string) {
  if (encoding === 'br') {
    return createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 1 } });
  }
  if (encoding === 'deflate') return createDeflate({ level: 1 });
  return createGzip({ level: 1 });
}

/** `body` compressed with each coding of `encoding` in turn (`gzip, br`: gzip, then br). */
function compressed(body: Readable, encoding: string): Readable {
  return encoding
    .split(',')
    .reduce((stream, coding) => stream.pipe(compressor(coding.trim())), body);
}

/** `body`, then `trailer` (bytes a server sends after the end of a compressed stream). */
function followedBy(body: Readable, trailer: string): Readable {
  if (trailer === '') return body;
  return Readable.from(
    (async function* () {
      yield* body;
      yield Buffer.from(trailer);
    })(),
  );
}

/** Streams `body` to `res`, ending it quietly if the client goes away. */
function stream(res: ServerResponse, body: Readable): void {
  pipeline(body, res).catch(() => res.destroy());
}

/**
 * The attacks, one per path:
 * - `/retry-after?value=V&status=429` — that status with `Retry-After: V`;
 * - `/quota-exhausted?reset=S` — a `200` with `X-RateLimit-Remaining: 0`, reset in S seconds;
 * - `/huge-headers?bytes=N` — a response head with an N-byte header;
 * - `/json?encoding=E&trailing=T` — a small JSON body compressed with E (gzip, deflate,
 *   br, or a list applied in turn: `gzip, br`), followed by the bytes of T when given;
 * - `/bomb?encoding=E&bytes=N` — N zero bytes compressed with E (a list too): a few KB on the wire;
 * - `/chunked?bytes=N&chunk=C` — N bytes in C-byte chunks, no length; endless without N;
 * - `/flapping?periodMs=P` — `200` for P ms, then `503` for P ms, and so on;
 * - `/hang` — never answers; `/reset` — a head, then the connection is destroyed;
 * - `/echo` — the request's method, URL and headers as JSON.
 */
export const HOSTILE_ROUTES: Readonly<Record<string, HostileRoute>> = {
  '/retry-after': (_req, res, { query }) => {
    res.writeHead(count(query, 'status', 429), { 'retry-after': query.get('value') ?? '99999999' });
    res.end('slow down');
  },
  '/quota-exhausted': (_req, res, { query }) => {
    res.writeHead(200, {
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(count(query, 'reset', 86_400)),
    });
    res.end('ok, but that was the last one');
  },
  '/huge-headers': (_req, res, { query }) => {
    res.writeHead(200, { 'x-filler': 'x'.repeat(count(query, 'bytes', 65_536)) });
    res.end('ok');
  },
  '/json': (_req, res, { query }) => {
    const encoding = query.get('encoding') ?? 'gzip';
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
    const json = compressed(Readable.from([JSON.stringify({ ok: true, encoding })]), encoding);
    stream(res, followedBy(json, query.get('trailing') ?? ''));
  },
  '/bomb': (_req, res, { query }) => {
    const encoding = query.get('encoding') ?? 'gzip';
    res.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-encoding': encoding,
    });
    const bytes = count(query, 'bytes', 1_073_741_824);
    stream(res, compressed(zeros(bytes, 1_048_576), encoding));
  },
  '/chunked': (_req, res, { query }) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    stream(res, zeros(count(query, 'bytes', Infinity), count(query, 'chunk', CHUNK_BYTES)));
  },
  '/flapping': (_req, res, { query, elapsedMs }) => {
    const periodMs = Math.max(1, count(query, 'periodMs', 1000));
    const up = Math.floor(elapsedMs() / periodMs) % 2 === 0;
    res.writeHead(up ? 200 : 503);
    res.end(up ? 'up' : 'down');
  },
  '/hang': () => {},
  '/reset': (_req, res) => {
    res.writeHead(200, { 'content-length': '1000' });
    res.write('partial');
    setImmediate(() => res.destroy());
  },
  '/echo': (req, res) => {
    const body = JSON.stringify({ method: req.method, url: req.url, headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  },
};
