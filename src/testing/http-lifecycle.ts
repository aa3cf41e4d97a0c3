import type { Server } from 'node:http';
import { check, number } from '../option-rules.js';

/** The rules of a test server's `port` (0: any free one) and `host` options. */
export const LISTEN_SPEC = {
  port: number(0, { min: 0, max: 65_535, integer: true }),
  host: check(
    'a host name or address',
    (value): value is string => typeof value === 'string' && value !== '',
    '127.0.0.1',
  ),
};

/** Listens on `port`/`host`; rejects on a bind error (port in use, bad address). */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Stops listening and ends every connection; resolves when the server has closed. */
export function closeServer(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}

/** The host as it appears in a URL (IPv6 addresses in brackets). */
export function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
