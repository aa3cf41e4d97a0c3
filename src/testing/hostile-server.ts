import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Clock, systemClock } from '../clock.js';
import { check, hasMethods } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import { HOSTILE_ROUTES } from './hostile-routes.js';
import { closeServer, LISTEN_SPEC, listen, urlHost } from './http-lifecycle.js';

/** Options of {@link startHostileServer}. */
export interface HostileServerOptions {
  /** Port to listen on; 0 picks a free one. @default 0 */
  port?: number;
  /** Address to bind. @default '127.0.0.1' */
  host?: string;
  /** Time source of the time-driven attacks (`/flapping`). @default systemClock */
  clock?: Clock;
}

/** A running hostile server. */
export interface HostileServer {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  /** Requests received, by path (query left out). */
  readonly hits: ReadonlyMap<string, number>;
  /** Stops listening and ends every connection, hung ones included. */
  close(): Promise<void>;
}

const OWNER = 'startHostileServer';
const readOptions = defineOptions<HostileServerOptions>()(OWNER, {
  ...LISTEN_SPEC,
  clock: check('a Clock', hasMethods<Clock>('now'), systemClock),
});

/**
 * Starts a real `node:http` server on loopback whose every path is an attack
 * on an HTTP client (see `HOSTILE_ROUTES`): a Retry-After of three years, a
 * quota spent for a day, a header too large, a decompression bomb, an endless
 * body, a server flapping between up and down, a hang, a reset. ratewise's
 * own hardening tests run against it; point your scraper at it to see what
 * it does. Unknown paths get a `404`.
 */
export async function startHostileServer(
  options: HostileServerOptions = {},
): Promise<HostileServer> {
  const { clock, host, port } = readOptions(options);
  const started = clock.now();
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://hostile.invalid');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    req.resume();
    const route = HOSTILE_ROUTES[url.pathname];
    if (route === undefined) {
      res.writeHead(404).end(`no attack at ${url.pathname}`);
      return;
    }
    route(req, res, { query: url.searchParams, elapsedMs: () => clock.now() - started });
  });
  await listen(server, port, host);
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${urlHost(host)}:${bound}`,
    hits,
    close: () => closeServer(server),
  };
}
