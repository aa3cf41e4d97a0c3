import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Clock, systemClock } from '../clock.js';
import { check, hasMethods, number, required } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import type { ModelReply, ModelRequest, ServerModel } from '../sim/models/model.js';
import { textReply } from '../sim/models/reply.js';
import { httpDate } from '../sim/models/retry-after.js';
import { bodyBuffer, dripBody } from './drip.js';
import { closeServer, LISTEN_SPEC, listen, urlHost } from './http-lifecycle.js';
import { type MockServerStats, ServerStatsRecorder } from './server-stats.js';

/** Options of {@link startMockServer}. */
export interface MockServerOptions {
  /** The server model that decides every reply. */
  model: ServerModel;
  /**
   * Port to listen on; 0 picks a free one.
   * @default 0
   */
  port?: number;
  /**
   * Address to bind.
   * @default '127.0.0.1'
   */
  host?: string;
  /**
   * Time source for arrivals, waits and the `Date` header.
   * @default systemClock
   */
  clock?: Clock;
  /**
   * Largest gap between two chunks of a dripped body, ms.
   * @default 25
   */
  dripIntervalMs?: number;
}

/** A running mock server. */
export interface MockServer {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  /** The port bound. */
  readonly port: number;
  /** What the server has seen so far (also at `GET /__stats`). */
  stats(): MockServerStats;
  /**
   * Stops listening and ends every connection, keep-alive or in flight; resolves
   * once every request has been finished (so `stats().inFlight` is 0).
   */
  close(): Promise<void>;
}

/** Request header that names the client (session) instead of the remote address. */
export const CLIENT_HEADER = 'x-ratewise-client';

/** Path of the stats endpoint; it never reaches the model. */
export const STATS_PATH = '/__stats';

const OWNER = 'startMockServer';

/**
 * Starts a real `node:http` server driven by a server model: each request goes
 * to `model.arrive` (time from the injected clock, relative to the start); the
 * server waits `ttfbMs`, writes the status and headers (plus `Date` and
 * `Content-Length`), drips the body over `bodyMs`, and calls `model.finish`
 * exactly once — also when the client goes away mid-reply.
 */
export async function startMockServer(options: MockServerOptions): Promise<MockServer> {
  const settings = readOptions(options);
  const { model, clock } = settings;
  const origin = clock.now();
  const modelTime = () => clock.now() - origin;
  const recorder = new ServerStatsRecorder();
  const stats = () => recorder.snapshot(model.name, modelTime(), model.capacity(modelTime()));
  const open = new Set<Promise<void>>();
  let ids = 0;

  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === STATS_PATH) return sendStats(res, stats());
    req.resume();
    const request: ModelRequest = {
      id: ++ids,
      at: modelTime(),
      wallAt: clock.wallNow(),
      client: clientOf(req),
      path: req.url ?? '/',
    };
    recorder.arrive(request.at);
    const reply = decide(model, request);
    recorder.decided(reply.status);
    const abort = new AbortController();
    const closed = new Promise<void>((resolve) => {
      res.once('close', () => {
        const aborted = !res.writableFinished;
        if (aborted) abort.abort();
        recorder.leave(aborted);
        model.finish?.(request, modelTime());
        resolve();
      });
    });
    open.add(closed);
    closed.then(() => open.delete(closed));
    respond(req, res, reply, settings, abort.signal).catch(() => res.destroy());
  });
  await listen(server, settings.port, settings.host);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${urlHost(settings.host)}:${port}`,
    port,
    stats,
    close: async () => {
      await closeServer(server);
      await Promise.all(open);
    },
  };
}

const readOptions = defineOptions<MockServerOptions>()(OWNER, {
  model: required<ServerModel>('a ServerModel', hasMethods('arrive', 'capacity')),
  ...LISTEN_SPEC,
  clock: check('a Clock', hasMethods<Clock>('now', 'sleep'), systemClock),
  dripIntervalMs: number(25, { min: 1 }),
});

type Settings = ReturnType<typeof readOptions>;

/** Asks the model; a model that throws is a bug, answered 500 so no client hangs. */
function decide(model: ServerModel, request: ModelRequest): ModelReply {
  try {
    return model.arrive(request);
  } catch (error) {
    return textReply(500, { body: `model ${model.name} failed: ${String(error)}` });
  }
}

async function respond(
  req: IncomingMessage,
  res: ServerResponse,
  reply: ModelReply,
  settings: Settings,
  signal: AbortSignal,
): Promise<void> {
  const { clock } = settings;
  await clock.sleep(reply.ttfbMs, signal);
  const bytes = bodyBuffer(reply.body, reply.bodyBytes);
  res.writeHead(reply.status, {
    // A model with a clock of its own (a skewed server) states its own Date.
    date: httpDate(clock.wallNow()),
    ...reply.headers,
    'content-length': String(bytes.length),
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const plan = { bodyMs: reply.bodyMs, intervalMs: settings.dripIntervalMs };
  await dripBody(res, bytes, plan, clock, signal);
}

function clientOf(req: IncomingMessage): string {
  const named = req.headers[CLIENT_HEADER];
  if (typeof named === 'string' && named !== '') return named;
  return req.socket.remoteAddress ?? 'unknown';
}

function sendStats(res: ServerResponse, stats: MockServerStats): void {
  const body = JSON.stringify(stats);
  res.writeHead(200, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'content-length': String(Buffer.byteLength(body)),
  });
  res.end(body);
}
