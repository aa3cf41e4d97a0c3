import { createServer as createHttpServer, type Server } from 'node:http';
import {
  type AddressInfo,
  createServer as createNetServer,
  type Server as NetServer,
} from 'node:net';
import { errors, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { classify, isAbort } from '../../src/classify.js';
import { AdmissionTimeoutError, InvalidOptionError } from '../../src/errors.js';
import type { SignalKind } from '../../src/signal.js';

function coded(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}

function fetchFailed(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

interface Row {
  name: string;
  error: unknown;
  kind: SignalKind;
  reason: string | RegExp;
}

const rows: Row[] = [
  { name: 'ECONNRESET', error: coded('ECONNRESET'), kind: 'reset', reason: 'ECONNRESET' },
  { name: 'EPIPE', error: coded('EPIPE'), kind: 'reset', reason: 'EPIPE' },
  {
    name: 'undici "other side closed"',
    error: fetchFailed(new errors.SocketError('other side closed')),
    kind: 'reset',
    reason: 'UND_ERR_SOCKET other side closed',
  },
  {
    name: 'body cut short',
    error: new errors.ResponseContentLengthMismatchError(),
    kind: 'reset',
    reason: 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  },
  {
    name: 'HTTP/2 stream reset',
    error: coded('ERR_HTTP2_STREAM_ERROR', 'Stream closed with error code NGHTTP2_INTERNAL_ERROR'),
    kind: 'reset',
    reason: 'ERR_HTTP2_STREAM_ERROR',
  },
  {
    name: 'HTTP/2 ENHANCE_YOUR_CALM',
    error: coded(
      'ERR_HTTP2_STREAM_ERROR',
      'Stream closed with error code NGHTTP2_ENHANCE_YOUR_CALM',
    ),
    kind: 'throttled',
    reason: 'HTTP/2 ENHANCE_YOUR_CALM',
  },
  {
    name: 'ECONNREFUSED',
    error: fetchFailed(coded('ECONNREFUSED')),
    kind: 'refused',
    reason: 'ECONNREFUSED',
  },
  { name: 'EHOSTUNREACH', error: coded('EHOSTUNREACH'), kind: 'refused', reason: 'EHOSTUNREACH' },
  { name: 'ENETUNREACH', error: coded('ENETUNREACH'), kind: 'refused', reason: 'ENETUNREACH' },
  {
    name: 'ENOTFOUND',
    error: fetchFailed(coded('ENOTFOUND')),
    kind: 'refused',
    reason: 'ENOTFOUND (dns)',
  },
  { name: 'EAI_AGAIN', error: coded('EAI_AGAIN'), kind: 'refused', reason: 'EAI_AGAIN (dns)' },
  { name: 'ETIMEDOUT', error: coded('ETIMEDOUT'), kind: 'timeout', reason: 'ETIMEDOUT' },
  {
    name: 'connect timeout',
    error: fetchFailed(new errors.ConnectTimeoutError()),
    kind: 'timeout',
    reason: 'UND_ERR_CONNECT_TIMEOUT',
  },
  {
    name: 'headers timeout',
    error: fetchFailed(new errors.HeadersTimeoutError()),
    kind: 'timeout',
    reason: 'UND_ERR_HEADERS_TIMEOUT',
  },
  {
    name: 'body timeout',
    error: new errors.BodyTimeoutError(),
    kind: 'timeout',
    reason: 'UND_ERR_BODY_TIMEOUT',
  },
  {
    name: 'AbortSignal.timeout reason',
    error: new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
    kind: 'timeout',
    reason: 'TimeoutError',
  },
  {
    name: 'Node AbortError caused by a TimeoutError',
    error: Object.assign(new Error('The operation was aborted'), {
      name: 'AbortError',
      code: 'ABORT_ERR',
      cause: new DOMException('timed out', 'TimeoutError'),
    }),
    kind: 'timeout',
    reason: 'TimeoutError',
  },
  {
    name: 'AggregateError of refusals (happy eyeballs)',
    error: new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')]),
    kind: 'refused',
    reason: 'ECONNREFUSED',
  },
  {
    name: 'undici ResponseError carries its response',
    error: new errors.ResponseError('Response Error', 429, {
      headers: { 'retry-after': '3' },
      body: '',
    }),
    kind: 'throttled',
    reason: '429',
  },
  {
    // undici 7's typings declare `headers` as the third argument; its code takes `{ headers, data }`.
    name: 'undici RequestRetryError carries its response',
    error: new errors.RequestRetryError('Request failed', 503, {
      headers: {},
      data: { count: 3 },
    } as never),
    kind: 'overloaded',
    reason: '503',
  },
  {
    name: 'ky/axios-style error.response',
    error: Object.assign(new Error('HTTPError'), {
      response: { status: 403, headers: { 'x-ratelimit-remaining': '0' } },
    }),
    kind: 'throttled',
    reason: '403 quota exhausted',
  },
  {
    name: 'plain TypeError',
    error: new TypeError('x is not a function'),
    kind: 'server-error',
    reason: 'unrecognised error TypeError',
  },
  {
    name: 'TLS error',
    error: coded('CERT_HAS_EXPIRED'),
    kind: 'server-error',
    reason: 'unrecognised error CERT_HAS_EXPIRED',
  },
  {
    name: 'a thrown string',
    error: 'boom',
    kind: 'server-error',
    reason: 'unrecognised string thrown',
  },
  { name: 'null', error: null, kind: 'server-error', reason: 'unrecognised null thrown' },
];

describe('classify(error)', () => {
  it.each(rows)('$name → $kind', ({ error, kind, reason }) => {
    const signal = classify(error);
    expect(signal?.kind).toBe(kind);
    if (typeof reason === 'string') expect(signal?.reason).toBe(reason);
    else expect(signal?.reason).toMatch(reason);
    expect(isAbort(error)).toBe(false);
  });

  it('covers every signal kind that an error can produce', () => {
    const kinds = new Set(rows.map((row) => row.kind));
    for (const kind of ['reset', 'refused', 'timeout', 'throttled', 'server-error'])
      expect(kinds).toContain(kind);
  });

  it.each([
    ['a DOMException AbortError', new DOMException('This operation was aborted', 'AbortError')],
    ['undici RequestAbortedError', new errors.RequestAbortedError()],
    [
      'Node AbortError',
      Object.assign(new Error('aborted'), { name: 'AbortError', code: 'ABORT_ERR' }),
    ],
    ['an abort wrapped in fetch failed', fetchFailed(new DOMException('aborted', 'AbortError'))],
    [
      'an abort whose cause is a reset',
      Object.assign(new DOMException('aborted', 'AbortError'), { cause: coded('ECONNRESET') }),
    ],
  ])('%s is the caller aborting: no signal', (_name, error) => {
    expect(isAbort(error)).toBe(true);
    expect(classify(error)).toBeUndefined();
  });

  it("returns no signal for ratewise's own errors and a closed client", () => {
    expect(classify(new AdmissionTimeoutError('host:a', 100))).toBeUndefined();
    expect(classify(new InvalidOptionError('x', 'bad'))).toBeUndefined();
    expect(classify(new errors.ClientDestroyedError())).toBeUndefined();
    expect(isAbort(new AdmissionTimeoutError('host:a', 100))).toBe(false);
  });

  it('returns no signal for an invalid request: our mistake, not the server’s, and not retried', () => {
    expect(classify(new errors.InvalidArgumentError('invalid upgrade header'))).toBeUndefined();
    expect(
      classify(new TypeError('fetch failed', { cause: coded('ERR_INVALID_URL') })),
    ).toBeUndefined();
    expect(isAbort({ status: 200, headers: {}, name: 'AbortError' })).toBe(false);
  });

  it('survives cyclic and very deep cause chains', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    Object.assign(a, { cause: b });
    expect(classify(a)).toEqual({ kind: 'server-error', reason: 'unrecognised error Error' });
    let deep: Error = coded('ECONNRESET');
    for (let i = 0; i < 10_000; i++) deep = new Error(`wrap ${i}`, { cause: deep });
    expect(classify(deep)?.kind).toBe('server-error');
    let shallow: Error = coded('ECONNRESET');
    for (let i = 0; i < 5; i++) shallow = new Error(`wrap ${i}`, { cause: shallow });
    expect(classify(shallow)).toEqual({ kind: 'reset', reason: 'ECONNRESET' });
  });
});

describe('classify on real loopback failures', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of cleanup.splice(0)) await stop();
  });

  function track(server: Server | NetServer): Promise<number> {
    cleanup.push(
      () =>
        new Promise((resolve) => {
          if ('closeAllConnections' in server) server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    return new Promise((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
    );
  }

  it('a closed port is refused', async () => {
    const server = createNetServer();
    const port = await new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
    );
    await new Promise((resolve) => server.close(resolve));
    const error = await fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(classify(error)).toEqual({ kind: 'refused', reason: 'ECONNREFUSED' });
  });

  it('a server that drops the connection is a reset', async () => {
    const server = createNetServer((socket) => socket.once('data', () => socket.destroy()));
    const port = await track(server);
    const error = await fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(classify(error)?.kind).toBe('reset');
  });

  it('a server that resets the connection is a reset', async () => {
    const server = createNetServer((socket) => socket.once('data', () => socket.resetAndDestroy()));
    const port = await track(server);
    const error = await request(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(classify(error)?.kind).toBe('reset');
  });

  it("the caller's abort is no signal; a TimeoutError reason is a timeout", async () => {
    let arrived: () => void = () => {};
    const server = createHttpServer(() => arrived());
    const port = await track(server);
    for (const [reason, expected] of [
      [undefined, undefined],
      [new DOMException('timed out', 'TimeoutError'), 'timeout'],
    ] as const) {
      const controller = new AbortController();
      const seen = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      const pending = fetch(`http://127.0.0.1:${port}/`, { signal: controller.signal }).catch(
        (e: unknown) => e,
      );
      await seen;
      controller.abort(reason);
      const error = await pending;
      expect(classify(error)?.kind).toBe(expected);
      expect(isAbort(error)).toBe(expected === undefined);
    }
  });

  it('a real fetch Response and an undici request() result classify as responses', async () => {
    const server = createHttpServer((_req, res) => {
      res.writeHead(429, { 'retry-after': '2', 'x-ratelimit-remaining': '0' }).end('slow down');
    });
    const port = await track(server);
    const response = await fetch(`http://127.0.0.1:${port}/`);
    const signal = classify(response);
    expect(signal).toMatchObject({ kind: 'throttled', status: 429, retryAfterMs: 2000 });
    expect(signal.quota?.remaining).toBe(0);
    await response.text();
    const data = await request(`http://127.0.0.1:${port}/`);
    expect(classify(data)).toMatchObject({ kind: 'throttled', status: 429, retryAfterMs: 2000 });
    await data.body.text();
  });
});
