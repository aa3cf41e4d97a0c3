import { Pool } from 'undici';
import type { Clock } from '../clock.js';
import { type Exchange, type ExchangeRequest, type Transport, timeoutError } from './transport.js';

/** Bodies longer than this are counted, not kept (block pages are short). */
const SNIFF_BYTES = 4096;

/**
 * A real HTTP transport for loopback runs: one undici pool to the mock
 * server, with enough keep-alive connections that the pool is never the
 * bottleneck, and the same timings the virtual transport reports.
 */
export class HttpTransport implements Transport {
  readonly #pool: Pool;
  readonly #clock: Clock;
  readonly #timeoutMs: number;

  constructor(origin: string, connections: number, timeoutMs: number, clock: Clock) {
    this.#pool = new Pool(origin, { connections, pipelining: 1 });
    this.#clock = clock;
    this.#timeoutMs = timeoutMs;
  }

  async send({ path, client }: ExchangeRequest): Promise<Exchange> {
    const started = this.#clock.now();
    const timeout = new AbortController();
    const cancel = this.#clock.setTimer(this.#timeoutMs, () => timeout.abort());
    const { signal } = timeout;
    try {
      const response = await this.#pool.request({
        method: 'GET',
        path,
        signal,
        ...(client ? { headers: { 'x-ratewise-client': client } } : {}),
      });
      const ttfbMs = this.#clock.now() - started;
      const { text, bytes } = await readSniffed(response.body);
      const headers = flatten(response.headers);
      return {
        status: response.statusCode,
        headers,
        body: text,
        timings: {
          dnsMs: 0,
          connectMs: 0,
          tlsMs: 0,
          ttfbMs,
          totalMs: this.#clock.now() - started,
          bytes,
        },
      };
    } catch (error) {
      throw signal.aborted ? timeoutError(this.#timeoutMs) : error;
    } finally {
      cancel();
    }
  }

  /** Closes the pool's connections. */
  close(): Promise<void> {
    return this.#pool.close();
  }
}

async function readSniffed(body: AsyncIterable<Buffer>): Promise<{ text: string; bytes: number }> {
  const kept: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body) {
    if (bytes < SNIFF_BYTES) kept.push(chunk);
    bytes += chunk.length;
  }
  return { text: Buffer.concat(kept).subarray(0, SNIFF_BYTES).toString('utf8'), bytes };
}

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
