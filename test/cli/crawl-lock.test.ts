import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCrawl } from '../../src/crawl/run-crawl.js';
import { startServer, type TestServer, waitFor } from '../client/helpers.js';
import { ensureBuilt, runCli, startCli } from './cli-process.js';

let dir: string;
let server: TestServer | undefined;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'ratewise-lock-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function lines(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { url: string }).url);
}

/** A pid that ran and is gone. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  return child.pid as number;
}

describe('crawl --out is locked', () => {
  it('a second crawl --resume on the same file refuses in one line (exit 2); the first writes each URL once', async () => {
    // Requests are held until the second crawl has been refused, so the first is surely running.
    const held: (() => void)[] = [];
    let holding = true;
    server = await startServer((req, res) => {
      const answer = () => setTimeout(() => res.end(`body of ${req.url}`), 5);
      if (holding) held.push(answer);
      else answer();
    });
    const urls = Array.from({ length: 400 }, (_, i) => `${server?.url}/item/${i}`);
    const input = join(dir, 'urls.txt');
    writeFileSync(input, `${urls.join('\n')}\n`);
    const out = join(dir, 'shared.jsonl');
    const first = startCli(
      ['crawl', input, '--out', out, '--resume', '--max-concurrency', '8'],
      dir,
    );
    first.child.stdin?.end();
    await waitFor(() => existsSync(`${out}.lock`));
    const second = await runCli(['crawl', input, '--out', out, '--resume'], dir);
    expect(second.code).toBe(2);
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    expect(second.stderr).toMatch(
      new RegExp(`is being written by another crawl \\(process ${first.child.pid} on `),
    );
    holding = false;
    for (const answer of held.splice(0)) answer();
    expect((await first.done).code).toBe(0);
    const written = lines(out);
    expect(written).toHaveLength(400);
    expect(new Set(written).size).toBe(400);
    expect(existsSync(`${out}.lock`)).toBe(false);
    const third = await runCli(['crawl', input, '--out', out, '--resume', '--json'], dir);
    expect(third.code).toBe(0);
    expect(lines(out)).toHaveLength(400);
  });

  it('runCrawl: a second run on the same file fails while the first runs, and works after it', async () => {
    let release: (() => void) | undefined;
    server = await startServer((req, res) => {
      if (req.url === '/a') release = () => res.end('ok');
      else res.end('ok');
    });
    const out = join(dir, 'lib.jsonl');
    const first = runCrawl({ urls: [`${server.url}/a`], out });
    await waitFor(() => release !== undefined);
    await expect(runCrawl({ urls: [`${server.url}/b`], out })).rejects.toMatchObject({
      code: 'ERR_RATEWISE_USAGE',
      message: expect.stringMatching(/being written by another crawl/),
    });
    release?.();
    await first;
    await runCrawl({ urls: [`${server.url}/c`], out, resume: true });
    expect(lines(out)).toEqual([`${server.url}/a`, `${server.url}/c`]);
  });

  it('takes over a lock left by a process that is gone, or one torn by a crash', async () => {
    server = await startServer((_req, res) => res.end('ok'));
    const out = join(dir, 'stale.jsonl');
    const stale = { pid: deadPid(), host: hostname(), since: '2026-01-01T00:00:00.000Z' };
    writeFileSync(`${out}.lock`, JSON.stringify(stale));
    expect((await runCrawl({ urls: [`${server.url}/1`], out })).urls).toBe(1);
    writeFileSync(`${out}.lock`, '{"pid":');
    expect((await runCrawl({ urls: [`${server.url}/2`], out, resume: true })).urls).toBe(1);
    expect(lines(out)).toEqual([`${server.url}/1`, `${server.url}/2`]);
    expect(existsSync(`${out}.lock`)).toBe(false);
  });
});
