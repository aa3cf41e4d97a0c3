import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCrawl } from '../../src/crawl/run-crawl.js';
import { startHostileServer } from '../../src/testing/hostile-server.js';
import { startServer, type TestServer } from '../client/helpers.js';
import { ensureBuilt, runCli } from './cli-process.js';

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'ratewise-crawl-pause-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function urlsOf(path: string): string[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { url: string }).url);
}

describe('crawl: a host that asks for a day-long pause', () => {
  it('sets its URLs aside with the reason, finishes the rest, and --resume fetches them', async () => {
    // The paused host answers its first request with Retry-After: 99999999, then (next run) 200s.
    let pausedOnce = false;
    const paused = await startServer((_req, res) => {
      if (!pausedOnce) {
        pausedOnce = true;
        res.writeHead(429, { 'retry-after': '99999999' }).end();
      } else setTimeout(() => res.end('ok'), 20);
    });
    const healthy = await startServer((_req, res) => res.end('ok'));
    servers.push(paused, healthy);
    const urls = [
      ...Array.from({ length: 30 }, (_, i) => `${paused.url}/p/${i}`),
      ...Array.from({ length: 30 }, (_, i) => `${healthy.url}/h/${i}`),
    ];
    const out = join(dir, 'results.jsonl');
    const first = await runCrawl({
      urls,
      out,
      maxConcurrency: 1, // one request to the paused host at a time: the 429 comes first
    });
    expect(first.stopped).toBe('done');
    expect(first.setAside).toBeGreaterThanOrEqual(29);
    expect(first.paused).toHaveLength(1);
    const [scope] = first.paused;
    expect(scope?.scope).toBe(`host:${new URL(paused.url).host}`);
    expect(scope?.urls).toBe(first.setAside);
    expect(scope?.reason).toMatch(/429 with Retry-After 86400 s, capped at 300 s/);
    expect(Date.parse(scope?.until ?? '')).toBeGreaterThan(Date.now());
    const written = urlsOf(out);
    expect(written.filter((url) => url.startsWith(healthy.url))).toHaveLength(30);
    expect(written.length + first.setAside).toBe(60);
    expect(paused.seen.length).toBeLessThanOrEqual(2); // the rest were never sent

    const second = await runCrawl({ urls, out, resume: true, maxConcurrency: 4 });
    expect(second.setAside).toBe(0);
    expect(second.skipped).toBe(written.length);
    expect(new Set(urlsOf(out)).size).toBe(60);
    expect(urlsOf(out)).toHaveLength(60);
  });
});

describe('ratewise crawl: the summary names the paused host', () => {
  it('lists the URLs set aside by scope, until when and why', async () => {
    const hostile = await startHostileServer();
    const healthy = await startServer((_req, res) => res.end('ok'));
    servers.push(healthy);
    try {
      const input = join(dir, 'paused.txt');
      const lines = [
        ...Array.from({ length: 6 }, (_, i) => `${hostile.url}/retry-after?value=99999999&n=${i}`),
        ...Array.from({ length: 6 }, (_, i) => `${healthy.url}/${i}`),
      ];
      writeFileSync(input, `${lines.join('\n')}\n`);
      const run = await runCli(['crawl', input, '--out', join(dir, 'paused.jsonl')], dir);
      expect(run.code).toBe(0);
      const host = new URL(hostile.url).host;
      expect(run.stdout).toMatch(
        new RegExp(
          `set aside 6 URLs of paused scopes, not written \\(--resume fetches them\\):\\n  host:${host.replace(/\./g, '\\.')}: 6 URLs, paused until \\S+ after 429 with Retry-After 86400 s, capped at 300 s`,
        ),
      );
      expect(urlsOf(join(dir, 'paused.jsonl'))).toHaveLength(6);
    } finally {
      await hostile.close();
    }
  });
});
