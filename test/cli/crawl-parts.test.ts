import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { progressDisplay } from '../../src/cli/progress-display.js';
import { readCrawlOptions } from '../../src/crawl/crawl-options.js';
import { countUrls, readLines } from '../../src/crawl/line-reader.js';
import { ResultsFile } from '../../src/crawl/results-file.js';
import { runCrawl } from '../../src/crawl/run-crawl.js';
import { startServer, waitFor } from '../client/helpers.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ratewise-crawl-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function collect(chunks: readonly Buffer[]): Promise<string[]> {
  const lines = [];
  for await (const line of readLines(Readable.from(chunks))) lines.push(line);
  return lines;
}

describe('readLines', () => {
  it('yields the same lines however the bytes are chunked (CRLF, multi-byte characters, no final newline)', async () => {
    const text = 'a\r\nbé€\n\nlast line ✓';
    const bytes = Buffer.from(text);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 6 }),
        async (cuts) => {
          const points = [0, ...cuts.sort((a, b) => a - b), bytes.length];
          const chunks = points.slice(1).map((end, i) => bytes.subarray(points[i], end));
          expect(await collect(chunks)).toEqual(['a', 'bé€', '', 'last line ✓']);
        },
      ),
    );
  });

  it('countUrls counts URL lines only (a last one without a newline too), not blanks or comments', async () => {
    const path = join(dir, 'count.txt');
    writeFileSync(path, 'http://a/1\n\n  # note\n \nhttp://a/2\nhttp://a/3');
    expect(await countUrls(path)).toEqual({ urls: 3, valid: 3 });
    writeFileSync(path, 'http://a/1\r\n#\r\n');
    expect(await countUrls(path)).toEqual({ urls: 1, valid: 1 });
  });
});

describe('ResultsFile', () => {
  it('on resume, cuts a torn last line and reports the URLs of the complete ones', async () => {
    const path = join(dir, 'torn.jsonl');
    writeFileSync(path, '{"url":"http://a/1"}\n{"url":"http://a/2"}\n');
    appendFileSync(path, '{"url":"http://a/3","sta');
    const { file, completed } = await ResultsFile.open(path, true);
    expect([...completed]).toEqual(['http://a/1', 'http://a/2']);
    await file.append({ url: 'http://a/3' });
    await file.close();
    expect(readFileSync(path, 'utf8')).toBe(
      '{"url":"http://a/1"}\n{"url":"http://a/2"}\n{"url":"http://a/3"}\n',
    );
  });

  it('without resume starts the file empty', async () => {
    const path = join(dir, 'fresh.jsonl');
    writeFileSync(path, '{"url":"http://old"}\n');
    const { file, completed } = await ResultsFile.open(path, false);
    expect(completed.size).toBe(0);
    await file.close();
    expect(readFileSync(path, 'utf8')).toBe('');
  });
});

describe('runCrawl', () => {
  it('reads the input only as fast as requests complete: bounded windows over an endless input', async () => {
    const server = await startServer((_req, res) => setTimeout(() => res.end('x'), 5));
    let pulled = 0;
    function* endless() {
      for (;;) yield `${server.url}/${pulled++}`;
    }
    const { scopeWindow, backlog } = readCrawlOptions({ urls: [], maxConcurrency: 2 });
    try {
      const stop = new AbortController();
      const running = runCrawl({ urls: endless(), maxConcurrency: 2, stop: stop.signal });
      await waitFor(() => server.seen.length > 5);
      stop.abort();
      const summary = await running;
      expect(summary.stopped).toBe('interrupted');
      expect(summary.urls).toBeGreaterThan(5);
      expect(pulled - summary.urls).toBeLessThanOrEqual(scopeWindow + backlog + 1);
      expect(server.seen.length).toBe(summary.urls);
    } finally {
      await server.close();
    }
  });

  it('keeps a fast host flowing while a slow host holds every request it gets', async () => {
    const held: ServerResponse[] = [];
    let released = false;
    const slow = await startServer((_req, res) => (released ? res.end('late') : held.push(res)));
    const fast = await startServer((_req, res) => res.end('quick'));
    const urls = Array.from({ length: 200 }, (_, i) => `${i % 2 ? fast.url : slow.url}/${i}`);
    try {
      const running = runCrawl({ urls, maxConcurrency: 2 });
      await waitFor(() => fast.seen.length === 100, 5000);
      expect(held.length).toBeLessThanOrEqual(2); // the slow host's slots, no more
      released = true;
      for (const res of held) res.end('late');
      const summary = await running;
      expect(summary).toMatchObject({ urls: 200, ok: 200, failed: 0, stopped: 'done' });
    } finally {
      await slow.close();
      await fast.close();
    }
  });

  it('abort without stop cancels what is in flight, writes nothing more and reports interrupted', async () => {
    const server = await startServer(() => {});
    const urls = Array.from({ length: 50 }, (_, i) => `${server.url}/${i}`);
    const out = join(dir, 'aborted.jsonl');
    try {
      const abort = new AbortController();
      const running = runCrawl({ urls, out, maxConcurrency: 2, abort: abort.signal });
      await waitFor(() => server.seen.length > 0);
      abort.abort();
      const summary = await running;
      expect(summary).toMatchObject({ stopped: 'interrupted', urls: 0 });
      expect(readFileSync(out, 'utf8')).toBe('');
    } finally {
      await server.close();
    }
  });

  it('a body that fails after the response keeps its status, signal and attempts', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('partial', () => res.socket?.destroy());
    });
    const out = join(dir, 'torn-body.jsonl');
    try {
      const summary = await runCrawl({ urls: [`${server.url}/a`], out });
      const [result] = readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(result).toMatchObject({ status: 200, signal: 'reset', attempts: 1 });
      expect(result.error).toEqual(expect.any(String));
      expect(summary).toMatchObject({ urls: 1, failed: 1 });
    } finally {
      await server.close();
    }
  });

  it('saves bodies under a hash of the URL and reports progress', async () => {
    const server = await startServer((req, res) => res.end(`page ${req.url}`));
    const bodies = join(dir, 'bodies');
    const out = join(dir, 'saved.jsonl');
    const ticks: number[] = [];
    try {
      const summary = await runCrawl({
        urls: [`${server.url}/p1`, `${server.url}/p2`],
        out,
        saveBodies: bodies,
        onProgress: (progress) => ticks.push(progress.done),
      });
      expect(summary).toMatchObject({ urls: 2, ok: 2, failed: 0, stopped: 'done' });
      const results = readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      for (const result of results) {
        expect(readFileSync(result.file, 'utf8')).toBe(`page ${new URL(result.url).pathname}`);
      }
      expect(ticks.at(-1)).toBe(2);
    } finally {
      await server.close();
    }
  });

  it.each([
    [{ maxConcurrency: 0 }, /runCrawl: option `maxConcurrency` must be an integer >= 1, got 0/],
    [{ scope: 'planet' }, /`scope` must be one of "host", "domain"/],
    [{ rate: 0 }, /option `rate` must be a number > 0, got 0/],
    [{ total: -1 }, /option `total` must be an integer >= 0, got -1/],
    [{ resume: 'yes' }, /option `resume` must be a boolean, got "yes"/],
    [{ stop: {} }, /option `stop` must be an AbortSignal/],
    [{ abort: 'now' }, /option `abort` must be an AbortSignal/],
    [{ onProgress: 1 }, /option `onProgress` must be a function/],
    [{ events: [] }, /option `events` must be an event sink function/],
    [{ client: { maxConcurrency: 8 } }, /option `client.maxConcurrency` must be left unset/],
    [{ client: { scope: () => 'x' } }, /option `client.scope` must be left unset/],
    [{ client: { retry: null } }, /createClient: option `retry` must be an object/],
  ])('rejects %o, naming the option, the value and the expectation', async (bad, message) => {
    const out = join(dir, 'never-written.jsonl');
    await expect(runCrawl({ urls: [], out, ...(bad as object) })).rejects.toThrow(message);
    expect(() => readFileSync(out)).toThrow(/ENOENT/); // checked before any file is touched
  });
});

describe('progressDisplay', () => {
  it('counts URLs skipped by --resume as gone through, so the total is reached', () => {
    const lines: string[] = [];
    const stream = { write: (text: string) => lines.push(text) } as unknown as NodeJS.WriteStream;
    const display = progressDisplay(stream);
    const progress = {
      elapsedS: 1,
      ok: 3,
      okPerSecond: 3,
      throttled: 0,
      failed: 0,
      requests: 3,
      setAside: 0,
    };
    display.update({ ...progress, done: 3, skipped: 7, total: 10 });
    expect(lines.join('')).toMatch(/done 10\/10 /);
  });

  it('shows the longest pause and the URLs set aside', () => {
    const lines: string[] = [];
    const stream = { write: (text: string) => lines.push(text) } as unknown as NodeJS.WriteStream;
    const progress = { elapsedS: 1, ok: 3, okPerSecond: 3, throttled: 1, failed: 0, requests: 4 };
    progressDisplay(stream).update({
      ...progress,
      done: 3,
      skipped: 0,
      setAside: 12,
      paused: { scope: 'host:a', leftS: 287, reason: '429 with Retry-After 300 s' },
    });
    expect(lines.join('')).toMatch(
      / \| paused host:a 287 s \(429 with Retry-After 300 s\) \| set aside 12\n$/,
    );
  });
});
