import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parse from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer, waitFor } from '../client/helpers.js';
import { ensureBuilt, runCli, startCli } from './cli-process.js';

let dir: string;
let server: TestServer;
beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'ratewise-metrics-'));
  server = await startServer((req, res) => setTimeout(() => res.end(`body of ${req.url}`), 100));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ratewise crawl --metrics-port', () => {
  it('serves /metrics while the crawl runs: a scrape that parses, with the requests so far', async () => {
    const urls = join(dir, 'urls.txt');
    writeFileSync(
      urls,
      `${Array.from({ length: 500 }, (_, i) => `${server.url}/${i}`).join('\n')}\n`,
    );
    const { child, done } = startCli(
      ['crawl', urls, '--metrics-port', '0', '--max-concurrency', '2', '--duration', '60'],
      dir,
    );
    let stderr = '';
    child.stderr?.on('data', (chunk) => (stderr += chunk));
    try {
      await waitFor(() => /metrics: http:\/\/\S+/.test(stderr));
      const endpoint = /metrics: (http:\/\/\S+)/.exec(stderr)?.[1] as string;
      const scope = `host:${new URL(server.url).host}`;
      let ok = 0;
      let families: ReturnType<typeof parse> = [];
      // Scrape until the crawl has done 5 requests (at most 200 scrapes).
      for (let i = 0; i < 200 && ok < 5; i++) {
        const response = await fetch(endpoint);
        expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
        families = parse(await response.text());
        const requests = families.find((f) => f.name === 'ratewise_requests_total');
        const metric = requests?.metrics.find(
          (m) => m.labels?.scope === scope && m.labels?.outcome === 'ok',
        );
        ok = Number(metric?.value ?? 0);
        if (ok < 5) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(ok).toBeGreaterThanOrEqual(5);
      const names = families.map((f) => f.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'ratewise_concurrency_limit',
          'ratewise_inflight_requests',
          'ratewise_scopes',
        ]),
      );
      expect((await fetch(endpoint.replace('/metrics', '/other'))).status).toBe(404);
    } finally {
      child.kill('SIGINT');
    }
    expect((await done).code).toBe(130);
  });

  it('a bad port is a usage error: exit 2, one line', async () => {
    const run = await runCli(['crawl', '-', '--metrics-port', 'abc'], dir);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/metrics-port/);
  });
});
