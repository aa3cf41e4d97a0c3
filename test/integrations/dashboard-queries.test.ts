import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/client.js';
import { type MetricsServer, startMetricsServer } from '../../src/integrations/metrics-server.js';
import { type TestServer, waitFor } from '../client/helpers.js';
import { startScriptedServer } from './scripted-server.js';

/**
 * The README's dashboard queries, run by a real Prometheus (Debian's `prometheus`) that
 * scrapes ratewise's `/metrics` every second while a client sends traffic with a refusal in
 * it: each query must parse and answer for the client's scope with a plausible value.
 */

const PROMETHEUS = '/usr/bin/prometheus';
const available = existsSync(PROMETHEUS) || process.env.CI !== undefined;
const README = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
/** The PromQL in the README's Metrics section: every inline code span that aggregates. */
const QUERIES = [...README.matchAll(/`((?:sum|histogram_quantile)\b[^`]*)`/g)].map(
  (m) => m[1] as string,
);

let dir: string;
let origin: TestServer;
let metrics: MetricsServer;
let prometheus: ChildProcess;
let api: string;
let log = '';

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

async function query(promql: string): Promise<Sample[]> {
  const response = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await response.json()) as {
    status: string;
    error?: string;
    data?: { result: Sample[] };
  };
  if (body.status !== 'success') throw new Error(`${promql}: ${body.error}`);
  return body.data?.result ?? [];
}

beforeAll(async () => {
  if (!available) return;
  dir = mkdtempSync(join(tmpdir(), 'ratewise-prometheus-'));
  origin = await startScriptedServer();
  metrics = await startMetricsServer({ port: 0 });
  const target = new URL(metrics.url).host;
  writeFileSync(
    join(dir, 'prometheus.yml'),
    `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: ratewise\n    static_configs:\n      - targets: ['${target}']\n`,
  );
  const listen = `127.0.0.1:${await freePort()}`;
  api = `http://${listen}`;
  prometheus = spawn(PROMETHEUS, [
    `--config.file=${join(dir, 'prometheus.yml')}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=${listen}`,
  ]);
  prometheus.stderr?.on('data', (chunk) => (log += chunk));
  await waitFor(() => log.includes('Server is ready to receive web requests'), 20_000);
}, 30_000);

afterAll(async () => {
  if (!available) return;
  prometheus?.kill('SIGKILL');
  await metrics?.close();
  await origin?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!available)("the README's dashboard queries, on a real Prometheus", () => {
  it('each answers for the scope: goodput, the refused share, the admission wait', async () => {
    expect(QUERIES).toHaveLength(3);
    const client = createClient({ maxConcurrency: 4 });
    metrics.watch(client.registry);
    const scope = `host:${new URL(origin.url).host}`;
    let sent = 0;
    const traffic = async (ms: number) => {
      const until = Date.now() + ms;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (Date.now() < until)
            await (await client.fetch(`${origin.url}/ok/${sent++}`)).text();
        }),
      );
    };
    // Traffic until Prometheus has scraped the scope; then a 429 (Retry-After: 1, retried) and
    // more traffic, through a few more scrapes.
    const deadline = Date.now() + 20_000;
    const until = async (answered: () => Promise<boolean>) => {
      while (!(await answered())) {
        if (Date.now() > deadline) throw new Error(`no answer from Prometheus:\n${log}`);
        await traffic(500);
      }
    };
    await until(async () => (await query('ratewise_requests_total')).length > 0);
    await (await client.fetch(`${origin.url}/429/seconds/dashboard`)).text();
    await traffic(2000);
    const [goodput, refused, wait] = QUERIES as [string, string, string];
    await until(async () => Number((await query(refused))[0]?.value[1]) > 0);
    const only = async (promql: string) => {
      const result = await query(promql);
      expect(result.map((s) => s.metric.scope)).toEqual([scope]);
      return Number(result[0]?.value[1]);
    };
    expect(await only(goodput)).toBeGreaterThan(0); // requests/s
    const share = await only(refused);
    expect(share).toBeGreaterThan(0);
    expect(share).toBeLessThan(0.5);
    const p95 = await only(wait); // seconds
    expect(p95).toBeGreaterThanOrEqual(0);
    expect(p95).toBeLessThan(10);
    await client.close();
  }, 60_000);
});
