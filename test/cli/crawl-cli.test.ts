import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../client/helpers.js';
import { ensureBuilt, runCli, startCli } from './cli-process.js';

let dir: string;
let server: TestServer | undefined;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'ratewise-cli-'));
  writeFileSync(join(dir, 'one.txt'), 'http://127.0.0.1:1/\n');
  writeFileSync(join(dir, 'passwd.txt'), 'root:x:0:0:root:/root:/bin/bash\nbin:x:1:1::/:\n');
  writeFileSync(join(dir, 'empty.txt'), '');
  writeFileSync(join(dir, 'plain.log'), '2026-01-31T04:00:00Z http://h/1 12 200\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server answering every request after `latencyMs`. */
async function serve(latencyMs: number): Promise<TestServer> {
  server = await startServer((req, res) =>
    setTimeout(() => res.end(`body of ${req.url}`), latencyMs),
  );
  return server;
}

function urlFile(name: string, lines: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

function resultLines(path: string): { url: string; status: number | null; error: string | null }[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

const lastJson = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');

describe('ratewise crawl', () => {
  it('writes one result per URL, reports malformed lines and goes on, ends with a JSON summary', async () => {
    const s = await serve(5);
    const input = urlFile('mixed.txt', [
      `${s.url}/a`,
      'not a url',
      '',
      '# a comment',
      `${s.url}/b`,
      'ftp://x/y',
    ]);
    const out = join(dir, 'mixed.jsonl');
    const run = await runCli(['crawl', input, '--out', out, '--json'], dir);
    expect(run.code).toBe(0);
    const results = resultLines(out);
    expect(results.map((r) => r.url).sort()).toEqual(
      [`${s.url}/a`, `${s.url}/b`, 'ftp://x/y', 'not a url'].sort(),
    );
    expect(results.find((r) => r.url === 'not a url')).toMatchObject({
      status: null,
      error: 'not an http(s) URL',
    });
    expect(results.find((r) => r.url === `${s.url}/a`)).toMatchObject({
      status: 200,
      signal: 'ok',
      attempts: 1,
      bytes: 10,
      error: null,
      timings: { bytes: 10 },
    });
    expect(lastJson(run.stdout)).toMatchObject({
      requests: 2,
      ok: 2,
      throttled: 0,
      failed: 2,
      byStatus: { '200': 2 },
      malformed: 2,
      stopped: 'done',
    });
  });

  it('--duration stops admitting, finishes what is in flight and exits 0', async () => {
    const s = await serve(40);
    const urls = Array.from({ length: 3000 }, (_, i) => `${s.url}/${i}`);
    const out = join(dir, 'duration.jsonl');
    const run = await runCli(
      [
        'crawl',
        urlFile('many.txt', urls),
        '--out',
        out,
        '--max-concurrency',
        '4',
        '--duration',
        '1',
        '--json',
      ],
      dir,
    );
    expect(run.code).toBe(0);
    const summary = lastJson(run.stdout);
    const results = resultLines(out);
    expect(summary.stopped).toBe('duration');
    expect(results.length).toBe(summary.urls);
    expect(results.length).toBeGreaterThan(10);
    expect(results.length).toBeLessThan(3000);
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(s.seen.length).toBe(results.length); // nothing sent that was not finished and written
  });

  it('--resume after a SIGKILL mid-crawl loses no result and repeats none', async () => {
    // The server answers the first 40 requests and holds every later one until the first crawl
    // is killed: on any schedule the kill finds it mid-crawl with exactly 40 results written.
    const answered = 40;
    const held: ServerResponse[] = [];
    let holding = true;
    server = await startServer((req, res, index) => {
      if (holding && index >= answered) held.push(res);
      else setTimeout(() => res.end(`body of ${req.url}`), 10);
    });
    const s = server;
    const urls = Array.from({ length: 120 }, (_, i) => `${s.url}/item/${i}`);
    const input = urlFile('resume.txt', urls);
    const out = join(dir, 'resume.jsonl');
    const first = startCli(['crawl', input, '--out', out, '--max-concurrency', '8'], dir);
    first.child.stdin?.end();
    await waitFor(() => safeLines(out) >= answered, 15_000);
    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    holding = false;
    for (const response of held) response.destroy(); // the killed crawl's requests
    const written = resultLines(out).length;
    expect(written).toBe(answered);
    appendFileSync(out, `{"url":"${s.url}/item/torn","sta`); // a write the kill cut short
    const second = await runCli(['crawl', input, '--out', out, '--resume', '--json'], dir);
    expect(second.code).toBe(0);
    const results = resultLines(out);
    expect(results.map((r) => r.url).sort()).toEqual([...urls].sort());
    expect(lastJson(second.stdout)).toMatchObject({ skipped: written, urls: 120 - written });
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s stops admitting, flushes what finished and exits %i', async (signal, code) => {
    const s = await serve(30);
    const urls = Array.from({ length: 2000 }, (_, i) => `${s.url}/${i}`);
    const out = join(dir, `${signal}.jsonl`);
    const run = startCli(['crawl', urlFile(`${signal}.txt`, urls), '--out', out, '--json'], dir);
    run.child.stdin?.end();
    await waitFor(() => safeLines(out) >= 20);
    run.child.kill(signal);
    const done = await run.done;
    expect(done.code).toBe(code);
    const summary = lastJson(done.stdout);
    expect(summary.stopped).toBe('interrupted');
    expect(resultLines(out).length).toBe(summary.urls);
  });

  it('--log with --resume cuts the line an interruption tore before appending', async () => {
    const s = await serve(0);
    const out = join(dir, 'log-resume.jsonl');
    const log = join(dir, 'log-resume.events.jsonl');
    const first = await runCli(
      ['crawl', urlFile('log1.txt', [`${s.url}/1`]), '--out', out, '--log', log],
      dir,
    );
    expect(first.code).toBe(0);
    appendFileSync(log, '{"t":12.5,"scope":"host:x","ty'); // the kill cut this write short
    const input = urlFile('log2.txt', [`${s.url}/1`, `${s.url}/2`]);
    const second = await runCli(['crawl', input, '--out', out, '--log', log, '--resume'], dir);
    expect(second.code).toBe(0);
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('reads URLs from a named pipe, as <(cmd) gives them', async () => {
    const s = await serve(0);
    const fifo = join(dir, 'urls.fifo');
    execFileSync('mkfifo', [fifo]);
    const out = join(dir, 'fifo.jsonl');
    // A separate writer: opening a pipe blocks until a reader comes, and one that never comes is killed.
    const writer = spawn('sh', [
      '-c',
      'printf "%s\\n%s\\n" "$1" "$2" > "$3"',
      'sh',
      `${s.url}/a`,
      `${s.url}/b`,
      fifo,
    ]);
    try {
      const run = await runCli(['crawl', fifo, '--out', out, '--json'], dir);
      expect(run.code).toBe(0);
      expect(resultLines(out).map((r) => r.status)).toEqual([200, 200]);
      expect(lastJson(run.stdout)).toMatchObject({ urls: 2, ok: 2 });
    } finally {
      writer.kill();
    }
  });
});

describe('ratewise usage errors: one line on stderr, exit 2', () => {
  it.each([
    [['crawl', 'no-such-file.txt'], /^ratewise: cannot read no-such-file.txt: ENOENT\n$/],
    [['crawl', '.'], /^ratewise: cannot read \.: not a file\n$/],
    [
      ['crawl', 'x', '--max-concurrency', 'lots'],
      /^ratewise: error: option '--max-concurrency <n>' argument 'lots' is invalid\. expected an integer >= 1\.\n$/,
    ],
    [
      ['crawl', 'x', '--scope', 'planet'],
      /^ratewise: error: option '--scope <scope>' argument 'planet' is invalid\. Allowed choices are host, domain\.\n$/,
    ],
    [['crawl', 'x', '--turbo'], /^ratewise: error: unknown option '--turbo'\n$/],
    [['crawl', 'x', '--resume'], /^ratewise: --resume needs --out <file>\n$/],
    [['crawl'], /^ratewise: error: missing required argument 'file'\n$/],
    [
      ['serve-mock', '--model', 'nope'],
      /^ratewise: --model: must be one of healthy, fixed-window, .*, got "nope" \(string\)\n$/,
    ],
    [
      ['serve-mock', '--model', 'fixed-window', '--param', 'speed=3'],
      /^ratewise: --param speed: not a parameter of this model \(its parameters: rate, windowMs, .*\)\n$/,
    ],
    [
      ['serve-mock', '--model', 'fixed-window', '--rate', 'fast'],
      /^ratewise: --rate: must be a rate > 0 .*, got "fast" \(string\)\n$/,
    ],
    [
      ['crawl', 'passwd.txt'],
      /^ratewise: passwd.txt: no line is an http\(s\) URL \(2 checked; line 1: not an http\(s\) URL: "root:x:0:0:root:\/root:\/bin\/bash"\)\n$/,
    ],
    [
      ['analyze', 'passwd.txt'],
      /^ratewise: passwd.txt: none of its 2 lines is a ratewise event, a crawl result or an "ISO8601 url latency_ms" line \(line 1: expected "ISO8601 url latency_ms"\)\n$/,
    ],
    [['analyze', 'empty.txt'], /^ratewise: empty.txt: the log is empty: nothing to analyse\n$/],
    [['report', 'passwd.txt', '-o', 'passwd.html'], /^ratewise: passwd.txt: none of its 2 lines/],
    [
      ['report', 'plain.log', '-o', 'one.txt/x.html'],
      /^ratewise: cannot write one.txt\/x.html: ENOTDIR \(one.txt is a file\)\n$/,
    ],
    [['report', 'plain.log', '-o', '.'], /^ratewise: cannot write \.: EISDIR \(a directory\)\n$/],
    [['demo', '--dir', 'one.txt/demo'], /^ratewise: cannot write one.txt\/demo: ENOTDIR\n$/],
    [
      ['crawl', 'one.txt', '--save-bodies', 'one.txt'],
      /^ratewise: cannot write one.txt: ENOTDIR \(a file, not a folder\)\n$/,
    ],
    [
      ['crawl', 'one.txt', '--save-bodies', 'one.txt/bodies'],
      /^ratewise: cannot write one.txt\/bodies: ENOTDIR\n$/,
    ],
    [
      ['bench', '--scenario', 'healthy', '--strategy', 'naive', '--write', 'one.txt/b.md'],
      /^ratewise: cannot write one.txt\/b.md: ENOTDIR \(one.txt is a file\)\n$/,
    ],
    [
      ['bench', '--scenario', 'healthy', '--strategy', 'naive', '--write', '.'],
      /^ratewise: cannot write \.: EISDIR \(a directory\)\n$/,
    ],
    [['demo', '--out', 'one.txt/old'], /^ratewise: cannot write one.txt\/old: ENOTDIR\n$/], // former name
    [['baseline', 'check', 'x.log', '--window-requests', '0'], /--window-requests/],
    [['baseline', 'check', 'x.log', '--window', '0'], /--window/], // former name
    [['baseline', 'check', 'passwd.txt'], /^ratewise: passwd.txt: none of its 2 lines/],
    [['probe', 'gopher://x'], /^ratewise: not an http\(s\) URL: gopher:\/\/x\n$/],
    [
      ['serve-mock', '--model', 'fixed-window', '--latency-ms', 'abc'],
      /^ratewise: --latency-ms: must be a number >= 0, got "abc" \(string\)\n$/,
    ],
    [
      ['serve-mock', '--model', 'fixed-window', '--latency', 'abc'], // former name
      /^ratewise: --latency-ms: must be a number >= 0, got "abc" \(string\)\n$/,
    ],
    [
      ['bench', '--timing-noise-ms', '5'],
      /^ratewise: --timing-noise-ms applies to --family and --field runs only\n$/,
    ],
    [
      ['bench', '--timing-noise', '5'],
      /^ratewise: --timing-noise-ms applies to --family and --field runs only\n$/,
    ], // former name
    [
      ['serve-mock', '--model', 'fixed-window', '--port', '70000'],
      /^ratewise: error: option '--port <port>' argument '70000' is invalid\. expected an integer >= 0 and <= 65535\.\n$/,
    ],
    [
      ['crawl', 'x', '--rate', '0'],
      /^ratewise: error: option '--rate <r>' argument '0' is invalid\. expected a number > 0\.\n$/,
    ],
    [['crawl', 'one.txt', '--out', '.', '--resume'], /^ratewise: \. is not a file\n$/],
    [
      ['crawl', 'x', '--refused-share', '1'],
      /^ratewise: error: option '--refused-share <share>' argument '1' is invalid\. expected a share from 0 to 0\.5 \(e\.g\. 0\.005\) or a percentage from 0% to 50% \(e\.g\. 0\.5%\)\.\n$/,
    ],
    [
      ['bench', '--strategy', 'naive', '--refused-share', '0.5%'],
      /^ratewise: --refused-share is ratewise's budget: add ratewise to --strategy\n$/,
    ],
  ])('%o', async (args, message) => {
    const run = await runCli(args, dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stdout).toBe('');
  });
});

function safeLines(path: string): number {
  try {
    return readFileSync(path, 'utf8').split('\n').length - 1;
  } catch {
    return 0;
  }
}

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
