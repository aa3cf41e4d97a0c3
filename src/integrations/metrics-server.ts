import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import type { ScopeRegistry } from '../controller/registry.js';
import { type PrometheusMetrics, prometheusMetrics } from './prometheus.js';

/** Where {@link startMetricsServer} listens. */
export interface MetricsServerOptions {
  /** Port; 0 picks a free one. */
  port: number;
  /** Address to bind. @default '127.0.0.1' */
  host?: string;
}

/** A running `/metrics` endpoint. */
export interface MetricsServer {
  /** `http://host:port/metrics`. */
  readonly url: string;
  /** Reports `registry`'s controllers (instead of any registry watched before). */
  watch(registry: ScopeRegistry): void;
  /** Stops listening and reporting. */
  close(): Promise<void>;
}

/**
 * Serves ratewise's Prometheus metrics at `GET /metrics` (text format 0.0.4)
 * on a plain `node:http` server, for `ratewise crawl --metrics-port` and for
 * any program that has no HTTP server of its own.
 */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const register = new Registry();
  let watched: PrometheusMetrics | undefined;
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /metrics\n');
      return;
    }
    register.metrics().then(
      (text) => res.writeHead(200, { 'content-type': register.contentType }).end(text),
      (error: unknown) => res.writeHead(500).end(String(error)),
    );
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/metrics`,
    watch(registry) {
      watched?.close();
      watched = prometheusMetrics({ registry, register });
    },
    close: () =>
      new Promise((resolve) => {
        watched?.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
