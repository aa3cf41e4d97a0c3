import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countLines, readLines } from '../../src/cli/line-reader.js';
import { ResultsFile } from '../../src/cli/results-file.js';
import { runCrawl } from '../../src/cli/run-crawl.js';
import { startServer } from '../client/helpers.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ratewise-crawl-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function collect(chunks: readonly Buffer[]): Promise<{ text: string; complete: boolean }[]> {
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
          expect(await collect(chunks)).toEqual([
            { text: 'a', complete: true },
            { text: 'bé€', complete: true },
            { text: '', complete: true },
            { text: 'last line ✓', complete: false },
          ]);
        },
      ),
    );
  });

  it('countLines counts a last line without a newline', async () => {
    const path = join(dir, 'count.txt');
    writeFileSync(path, 'a\nb\nc');
    expect(await countLines(path)).toBe(3);
    writeFileSync(path, 'a\nb\n');
    expect(await countLines(path)).toBe(2);
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
  it('reads the input only as fast as requests complete: a bounded window over an endless input', async () => {
    const server = await startServer((_req, res) => setTimeout(() => res.end('x'), 5));
    let pulled = 0;
    function* endless() {
      for (;;) yield `${server.url}/${pulled++}`;
    }
    try {
      const stop = new AbortController();
      const running = runCrawl({ urls: endless(), maxConcurrency: 2, stop: stop.signal });
      await new Promise((resolve) => setTimeout(resolve, 300));
      stop.abort();
      const summary = await running;
      expect(summary.stopped).toBe('interrupted');
      expect(summary.urls).toBeGreaterThan(5);
      expect(pulled - summary.urls).toBeLessThanOrEqual(8 + 1); // window of 4 × maxConcurrency
      expect(server.seen.length).toBe(summary.urls);
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

  it('rejects bad options with the option, the value and the expectation', async () => {
    await expect(runCrawl({ urls: [], maxConcurrency: 0 })).rejects.toThrow(
      /runCrawl: option `maxConcurrency` must be an integer >= 1, got 0/,
    );
    await expect(runCrawl({ urls: [], scope: 'planet' as 'host' })).rejects.toThrow(
      /`scope` must be one of "host", "domain"/,
    );
  });
});
