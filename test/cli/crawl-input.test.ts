import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLines, urlProblem } from '../../src/crawl/line-reader.js';
import { startServer, type TestServer } from '../client/helpers.js';
import { ensureBuilt, runCli } from './cli-process.js';

let dir: string;
let server: TestServer;
beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'ratewise-crawl-input-'));
  server = await startServer((req, res) => res.end(`body of ${req.url}`));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('crawl input and output a new user gets right', () => {
  it('without --out, writes the results as JSON lines on stdout and the summary on stderr', async () => {
    const input = join(dir, 'urls.txt');
    writeFileSync(input, `${server.url}/a\n${server.url}/b\n`);
    const run = await runCli(['crawl', input, '--json'], dir);
    expect(run.code).toBe(0);
    const results = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(results.map((r) => r.url).sort()).toEqual([`${server.url}/a`, `${server.url}/b`]);
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(JSON.parse(run.stderr.trim().split('\n').at(-1) ?? '')).toMatchObject({
      urls: 2,
      ok: 2,
    });
  });

  it('reports a URL with trailing words as malformed instead of fetching it with %20', async () => {
    const input = join(dir, 'junk.txt');
    writeFileSync(input, `${server.url}/item/3 trailing junk\n${server.url}/item/4\n`);
    const before = server.seen.length;
    const run = await runCli(['crawl', input, '--out', '-'], dir);
    expect(run.code).toBe(0);
    const results = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(results.find((r) => r.url.endsWith('junk'))).toMatchObject({
      status: null,
      attempts: 0,
      error: 'not one URL: text follows the URL on the line',
    });
    expect(server.seen.slice(before).map((r) => r.path)).toEqual(['/item/4']);
  });

  it('names why a line is not a URL', () => {
    expect(urlProblem('http://h/x')).toBeUndefined();
    expect(urlProblem('http://h/x\tjunk')).toMatch(/text follows the URL/);
    expect(urlProblem('not a url')).toBe('not an http(s) URL');
    expect(urlProblem('ftp://h/x')).toBe('not an http(s) URL');
    expect(urlProblem(`http://h/${'a'.repeat(70_000)}`)).toBe('line longer than 65536 characters');
  });

  it('reads an endless line in linear time and bounded memory: cut short, then the next line', async () => {
    const chunk = 'a'.repeat(65_536);
    async function* input() {
      yield 'http://h/1\nhttp://h/';
      for (let i = 0; i < 1_000; i++) yield chunk; // a 64 MB line
      yield '\nhttp://h/2\n';
    }
    const lines: string[] = [];
    for await (const line of readLines(Readable.from(input()))) lines.push(line);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('http://h/1');
    expect(lines[1]?.length).toBe(1_000_002);
    expect(lines[2]).toBe('http://h/2');
  });
});
