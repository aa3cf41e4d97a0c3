import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisProcess, startRedisServer } from '../../src/redis/redis-process.js';
import type { ScopeStatus } from '../../src/redis/status.js';
import { ensureBuilt, runCli } from '../cli/cli-process.js';

let redis: RedisProcess;
let server: Server;
let host: string;
let dir: string;
let inflight = 0;
let most = 0;

beforeAll(async () => {
  ensureBuilt();
  redis = await startRedisServer();
  dir = mkdtempSync(join(tmpdir(), 'ratewise-fleet-cli-'));
  server = createServer((_request, response) => {
    most = Math.max(most, ++inflight);
    setTimeout(() => {
      inflight--;
      response.end('ok');
    }, 20);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000); // a dist/ older than src/ is built first (redis-process.test.ts allows the same)
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await redis.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ratewise crawl --redis and ratewise fleet status', () => {
  it('two crawls share one window on a host; fleet status shows the scope', async () => {
    for (const name of ['a', 'b']) {
      const urls = Array.from({ length: 30 }, (_, i) => `http://${host}/${name}/${i}`);
      writeFileSync(join(dir, `${name}.txt`), `${urls.join('\n')}\n`);
    }
    const crawl = (name: string) =>
      runCli(
        [
          'crawl',
          `${name}.txt`,
          '--redis',
          redis.url,
          '--max-concurrency',
          '3',
          '--out',
          `${name}.jsonl`,
        ],
        dir,
        30_000,
      );
    const [a, b] = await Promise.all([crawl('a'), crawl('b')]);
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    expect(a.stderr).toMatch(/joined the fleet/);
    expect(most, a.stderr + b.stderr).toBeLessThanOrEqual(3); // one window of 3 for both crawls
    const status = await runCli(['fleet', 'status', '--redis', redis.url, '--json'], dir);
    expect(status.code, status.stderr).toBe(0);
    const scopes = JSON.parse(status.stdout) as ScopeStatus[];
    expect(scopes.map((s) => s.scope)).toEqual([`host:${host}`]);
    expect(scopes[0]?.version).toBeGreaterThan(0);
    const table = await runCli(['fleet', 'status', '--redis', redis.url], dir);
    expect(table.stdout).toMatch(new RegExp(`^scope +window +rate/s +epoch[^\\n]*\\nhost:${host}`));
  }, 40_000);

  it('fails in one line, exit 1, when Redis is not there', async () => {
    const run = await runCli(['fleet', 'status', '--redis', 'redis://127.0.0.1:1'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^ratewise: cannot reach Redis at redis:\/\/127\.0\.0\.1:1: .*\n$/);
  });
});
