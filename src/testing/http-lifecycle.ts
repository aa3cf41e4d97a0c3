import type { Server } from 'node:http';

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
