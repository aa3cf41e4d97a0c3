import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, waitFor } from '../client/helpers.js';
import { ensureBuilt, startCli } from './cli-process.js';

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'ratewise-log-kill-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The JSON lines of `path` so far (none if it is not there yet). */
function logLines(path: string): { type?: string }[] {
  try {
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line.endsWith('}'))
      .map((line) => JSON.parse(line));
  } catch {
    return [];
  }
}

describe('ratewise crawl --log', () => {
  it('a slow crawl killed with SIGKILL keeps the events of its first seconds (flushed as they come)', async () => {
    // One request at a time, 100 ms each: a few KB of events a second, far below the buffer size.
    const server = await startServer((_req, res) => setTimeout(() => res.end('ok'), 100));
    try {
      const input = join(dir, 'slow.txt');
      writeFileSync(input, Array.from({ length: 200 }, (_, i) => `${server.url}/${i}\n`).join(''));
      const log = join(dir, 'slow.events.jsonl');
      const out = join(dir, 'slow.jsonl');
      const args = ['crawl', input, '--out', out, '--log', log, '--max-concurrency', '1'];
      const run = startCli(args, dir);
      run.child.stdin?.end();
      await waitFor(() => server.seen.length >= 5, 10_000);
      await waitFor(() => logLines(log).some((line) => line.type === 'sample'), 5_000);
      run.child.kill('SIGKILL');
      expect((await run.done).signal).toBe('SIGKILL');
      const lines = logLines(log);
      expect(lines[0]?.type).toBe('run');
      expect(lines.filter((line) => line.type === 'sample').length).toBeGreaterThan(0);
      expect(server.seen.length).toBeLessThan(200); // killed mid-crawl, not after it
    } finally {
      await server.close();
    }
  });
});
