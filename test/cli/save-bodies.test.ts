import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { removeStaleParts } from '../../src/crawl/body-files.js';
import { runCrawl } from '../../src/crawl/run-crawl.js';
import { type HostileServer, startHostileServer } from '../../src/testing/hostile-server.js';

let dir: string;
let hostile: HostileServer | undefined;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ratewise-bodies-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await hostile?.close();
  hostile = undefined;
});

const HASH = 'a'.repeat(32);

/** The `.part` file this process writes a URL's body to. */
function partOf(bodies: string, url: string): string {
  const hash = createHash('sha256').update(url).digest('hex').slice(0, 32);
  return join(bodies, `${hash}.body.${process.pid}.part`);
}

describe('crawl --save-bodies', () => {
  it('saves whole bodies under their hash, and leaves no .part behind a failed download', async () => {
    hostile = await startHostileServer();
    const bodies = join(dir, 'saved');
    const out = join(dir, 'saved.jsonl');
    const summary = await runCrawl({
      urls: [`${hostile.url}/chunked?bytes=300000&chunk=1000`, `${hostile.url}/reset`],
      out,
      saveBodies: bodies,
      client: { retry: { maxAttempts: 1 } },
    });
    expect(summary.urls).toBe(2);
    const results = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { url: string; file?: string; error: string | null });
    const saved = results.find((r) => r.url.includes('/chunked'));
    expect(readFileSync(saved?.file ?? '').length).toBe(300_000);
    expect(results.find((r) => r.url.includes('/reset'))?.error).not.toBeNull();
    expect(readdirSync(bodies).filter((name) => name.endsWith('.part'))).toEqual([]);
  });

  it('a body its file cannot take (disk full) fails that URL and frees its place: the crawl goes on', async () => {
    hostile = await startHostileServer();
    const bodies = join(dir, 'full');
    mkdirSync(bodies, { recursive: true });
    // Bodies larger than the client's queue, so a download left unread stays paused.
    const urls = Array.from(
      { length: 6 },
      (_, i) => `${hostile?.url}/chunked?bytes=4000000&n=${i}`,
    );
    for (const url of urls) symlinkSync('/dev/full', partOf(bodies, url)); // every write: ENOSPC
    const out = join(dir, 'full.jsonl');
    const summary = await runCrawl({
      urls,
      out,
      saveBodies: bodies,
      maxConcurrency: 1, // one held place would stall the rest for good
    });
    expect(summary).toMatchObject({ urls: 6, failed: 6 });
    const results = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    for (const result of results) {
      expect(result).toMatchObject({ status: 200, signal: 'ok' }); // the server did nothing wrong
      expect(result.error).toMatch(/^cannot write .*\.body: ENOSPC/);
    }
    expect(readdirSync(bodies)).toEqual([]);
    expect(hostile.hits.get('/chunked')).toBe(6);
  });

  it('a folder that cannot be made (a file in the way) fails at once: nothing fetched, out untouched', async () => {
    hostile = await startHostileServer();
    const notAFolder = join(dir, 'not-a-folder.txt');
    writeFileSync(notAFolder, 'x');
    const out = join(dir, 'untouched.jsonl');
    writeFileSync(out, '{"url":"earlier"}\n');
    for (const saveBodies of [notAFolder, join(notAFolder, 'bodies')]) {
      const crawl = runCrawl({ urls: [`${hostile.url}/chunked?bytes=10`], out, saveBodies });
      await expect(crawl).rejects.toMatchObject({
        code: 'ERR_RATEWISE_USAGE',
        message: expect.stringMatching(/^cannot write .*not-a-folder\.txt(\/bodies)?: ENOTDIR/),
      });
    }
    expect(hostile.hits.get('/chunked')).toBeUndefined();
    expect(readFileSync(out, 'utf8')).toBe('{"url":"earlier"}\n');
  });

  it('removes the .part files a killed crawl left, not those of a crawl still running', async () => {
    const bodies = join(dir, 'stale');
    mkdirSync(bodies, { recursive: true });
    const gone = spawnSync(process.execPath, ['-e', '0']).pid as number;
    const running = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      const names = {
        gone: `${HASH}.body.${gone}.part`,
        legacy: `${'b'.repeat(32)}.body.part`,
        running: `${'c'.repeat(32)}.body.${running.pid}.part`,
        body: `${'d'.repeat(32)}.body`,
        other: 'notes.part',
      };
      for (const name of Object.values(names)) writeFileSync(join(bodies, name), 'x');
      expect(await removeStaleParts(bodies)).toBe(2);
      expect(existsSync(join(bodies, names.gone))).toBe(false);
      expect(existsSync(join(bodies, names.legacy))).toBe(false);
      for (const kept of [names.running, names.body, names.other]) {
        expect(existsSync(join(bodies, kept))).toBe(true);
      }
      expect(await removeStaleParts(join(dir, 'no-such-dir'))).toBe(0);
    } finally {
      running.kill();
    }
  });
});
