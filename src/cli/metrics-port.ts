import { InvalidArgumentError } from 'commander';
import type { MetricsServer } from '../integrations/metrics-server.js';
import { UsageError } from './usage-error.js';

/** Where `--metrics-port` serves. */
export interface MetricsAddress {
  host: string;
  port: number;
}

/** Parses `--metrics-port`: `9464`, or `host:9464` (`0.0.0.0:9464` to be scraped from elsewhere). */
export function metricsAddress(text: string): MetricsAddress {
  const colon = text.lastIndexOf(':');
  const host = colon < 0 ? '127.0.0.1' : text.slice(0, colon).replace(/^\[|\]$/g, '');
  const portText = text.slice(colon + 1);
  const port = Number(portText);
  if (
    portText.trim() === '' ||
    !Number.isInteger(port) ||
    port < 0 ||
    port > 65535 ||
    host === ''
  ) {
    throw new InvalidArgumentError('expected a port (0-65535), optionally host:port.');
  }
  return { host, port };
}

/**
 * Starts the `/metrics` endpoint, loading prom-client only now (an optional
 * dependency), and says where it is on stderr.
 */
export async function serveMetrics(address: MetricsAddress): Promise<MetricsServer> {
  let module: typeof import('../integrations/metrics-server.js');
  try {
    module = await import('../integrations/metrics-server.js');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND';
    if (!missing) throw error;
    throw new UsageError('--metrics-port needs prom-client: npm install prom-client');
  }
  try {
    const server = await module.startMetricsServer(address);
    process.stderr.write(`metrics: ${server.url}\n`);
    return server;
  } catch (error) {
    throw UsageError.file('listen on', `${address.host}:${address.port}`, error);
  }
}
