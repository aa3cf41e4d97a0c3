import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisProcess, startRedisServer } from '../src/redis/redis-process.js';
import { CLI, ensureBuilt } from './cli/cli-process.js';

/**
 * Runs every code block of the README as a reader would — the shell blocks
 * in bash with `ratewise` on the PATH, the JavaScript blocks as ES modules
 * importing the package by name — against the README's own `serve-mock`,
 * and checks what each block is there to show. Only the port is changed (a
 * free one instead of 8931). A block no check knows still has to run
 * without error; editing a block into something that no longer works fails.
 */

const ROOT = join(import.meta.dirname, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const README_PORT = '8931';
/** The fleet section's Redis port, replaced by a free one too. */
const README_REDIS_PORT = '6390';
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

interface Block {
  lang: string;
  code: string;
}
const blocks: Block[] = [...README.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map((m) => ({
  lang: m[1] as string,
  code: m[2] as string,
}));

let dir: string;
let bin: string;
let port: string;
let server: ChildProcess;
let serverOutput = '';
/** The fleet section's Redis (its shell block starts and stops its own on the same port). */
let redis: RedisProcess;
const exec = promisify(execFile);

/** The block's code for this run: the README's ports replaced by the test's. */
const localise = (code: string) =>
  code.replaceAll(README_PORT, port).replaceAll(README_REDIS_PORT, String(redis.port));

/** The shell commands of a block: its lines without comments and blank lines. */
const commands = (code: string) =>
  code
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

async function freePort(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port: free } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return String(free);
}

/** Runs a shell block; resolves with each command's output (stdout and stderr), keyed by the command. */
async function runShell(code: string, cwd: string): Promise<Map<string, string>> {
  const lines = commands(localise(code));
  const script = lines
    // The marker quotes the command literally ($!, backticks and quotes included).
    .map((line) => `echo '@@@ ${line.replaceAll("'", "'\\''")}'\n${line}`)
    .join('\n');
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
  let output: string;
  try {
    const run = await exec('bash', ['-e', '-o', 'pipefail', '-c', `exec 2>&1\n${script}`], {
      cwd,
      env,
      timeout: 120_000,
      maxBuffer: 32 * 1024 * 1024,
    });
    output = run.stdout;
  } catch (error) {
    const failed = error as { stdout?: string; code?: number };
    throw new Error(`a README shell block failed (exit ${failed.code}):\n${failed.stdout ?? ''}`);
  }
  const outputs = new Map<string, string>();
  for (const part of output.split(/^@@@ /m).slice(1)) {
    const end = part.indexOf('\n');
    outputs.set(part.slice(0, end), part.slice(end + 1));
  }
  expect([...outputs.keys()]).toEqual(lines);
  return outputs;
}

/** Runs a JavaScript block as an ES module in a folder of its own; resolves with its stdout. */
async function runModule(code: string, name: string): Promise<{ stdout: string; cwd: string }> {
  const cwd = join(dir, name);
  mkdirSync(join(cwd, 'node_modules'), { recursive: true });
  symlinkSync(ROOT, join(cwd, 'node_modules', 'ratewise'));
  // undici, and the libraries an integration example imports (ky, axios, crawlee…).
  const imported = [...code.matchAll(/from '((?:@[\w.-]+\/)?[\w.-]+)/g)].map((m) => m[1] as string);
  for (const name of new Set(['undici', ...imported])) {
    if (name === 'ratewise' || name.startsWith('node:')) continue;
    mkdirSync(dirname(join(cwd, 'node_modules', name)), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), join(cwd, 'node_modules', name));
  }
  writeFileSync(join(cwd, 'block.mjs'), localise(code));
  try {
    const { stdout } = await exec(process.execPath, ['block.mjs'], { cwd, timeout: 30_000 });
    return { stdout, cwd };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    throw new Error(`README block ${name} failed:\n${failed.stdout ?? ''}${failed.stderr ?? ''}`);
  }
}

/** What an integration or metrics block prints to show it worked. */
function integrationOutput(code: string): RegExp {
  const item = `http://127\\.0\\.0\\.1:${port}/item/`;
  if (code.includes('ky.create(')) return /\S/; // the page's text
  if (code.includes('ratewiseCrawlee(')) {
    // Each page's URL and length (among Crawlee's log lines), in either order.
    const page = (n: number) => `(?=[\\s\\S]*^${item}${n} \\d+$)`;
    return new RegExp(`^${page(1)}${page(2)}`, 'm');
  }
  if (code.includes('prometheusMetrics(') || code.includes('otelMetrics(')) {
    // The scope's ok count (OTel's exporter adds an otel_scope_name label).
    return new RegExp(
      `\\nratewise_requests_total\\{scope="host:127\\.0\\.0\\.1:${port}",outcome="ok"[^}]*\\} 1\\n`,
    );
  }
  return /^200\n$/; // axios, got, Playwright: the status of the one request
}

/** Commands of the README's command-line tour that stand alone: they need no file an earlier command wrote. */
const STANDALONE = /^ratewise (probe|diagnose|bench) /;

/**
 * Runs half of the README's command-line tour in a folder of its own (`name`),
 * split so each half has its own time limit on a loaded machine: the crawl and
 * what reads its files (`standalone` false), or the rest. Resolves with the
 * folder, each command's output, and `said(start)`: the output of the first
 * command that starts with `start`.
 */
async function runCliTour(standalone: boolean, name: string) {
  const block = blocks.find((b) => b.lang === 'sh' && /ratewise crawl /.test(b.code)) as Block;
  const code = commands(block.code)
    .filter((line) => STANDALONE.test(line) === standalone)
    .join('\n');
  const cwd = join(dir, name);
  mkdirSync(cwd);
  const out = await runShell(code, cwd);
  const said = (start: string) => [...out].find(([line]) => line.startsWith(start))?.[1] ?? '';
  return { cwd, out, said };
}

function jsonLines(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'ratewise-readme-'));
  bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'ratewise'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(bin, 'ratewise'), 0o755);
  port = await freePort();
  redis = await startRedisServer();
  // The practice server, as its block says: in a terminal of its own.
  const serve = blocks.find((b) => b.lang === 'sh' && /^ratewise serve-mock /m.test(b.code));
  const [line] = commands(localise(serve?.code ?? ''));
  expect(commands(serve?.code ?? '')).toHaveLength(1);
  server = spawn('bash', ['-c', `exec ${line}`], {
    cwd: dir,
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
  });
  server.stdout?.on('data', (chunk) => (serverOutput += chunk));
  server.stderr?.on('data', (chunk) => (serverOutput += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`serve-mock did not start: ${serverOutput}`)),
      60_000,
    );
    server.stdout?.on('data', () => {
      if (!serverOutput.includes(`http://127.0.0.1:${port}`)) return;
      clearTimeout(timer);
      resolve();
    });
  });
}, 120_000); // a loaded machine: building, Redis and the server's start share two cores with the suite

afterAll(async () => {
  await redis?.close();
  if (server?.exitCode === null) server.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('README', () => {
  it('has the blocks these checks know, in order', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(6);
    expect(blocks.every((b) => b.lang === 'sh' || b.lang === 'js')).toBe(true);
  });

  it('first screen: one command runs the demo, one the whole test suite', async () => {
    const first = blocks[0] as Block;
    expect(first.lang).toBe('sh');
    expect(commands(first.code).map((c) => c.replace(/\s+#.*$/, ''))).toEqual([
      'npm ci && npm run demo',
      'npm test',
    ]);
    expect(README.indexOf(first.code)).toBeLessThan(1500); // on the first screen
    expect(existsSync(join(ROOT, 'package-lock.json'))).toBe(true);
    expect(pkg.scripts.test).toBe('vitest run'); // every test file, no filter
    expect(readFileSync(join(ROOT, '.ci', 'run'), 'utf8')).toMatch(/^npm test\b/m);
    // `npm run demo`, shortened (the whole demo takes 50 s).
    const demo = await exec(
      'npm',
      ['run', 'demo', '--', '--duration', '2', '--dir', join(dir, 'demo')],
      {
        cwd: ROOT,
        timeout: 60_000,
      },
    );
    expect(demo.stdout).toMatch(/In 2 s each, ratewise fetched \d+ pages and naive \d+/);
    expect(existsSync(join(dir, 'demo', 'report.html'))).toBe(true);
  }, 60_000);

  it('command line: crawl, resume, analyze and report do what they say', async () => {
    const { cwd, said } = await runCliTour(false, 'cli');

    const urls = readFileSync(join(cwd, 'urls.txt'), 'utf8').trim().split('\n');
    const results = jsonLines(join(cwd, 'results.jsonl'));
    // The first run stopped early, the resumed one finished: every URL exactly once, all fetched.
    expect(said('ratewise crawl urls.txt --out results.jsonl --log events.jsonl --max')).toMatch(
      /stopped: duration/,
    );
    expect(said('ratewise crawl urls.txt --out results.jsonl --log events.jsonl --resume')).toMatch(
      /skipped [1-9]\d*.*stopped: done/,
    );
    expect(results.map((r) => r.url).sort()).toEqual([...urls].sort());
    expect(results.every((r) => r.status === 200)).toBe(true);
    const events = jsonLines(join(cwd, 'events.jsonl'));
    expect(events.filter((e) => e.type === 'run')).toHaveLength(2);

    // The analysis counts each URL once and never shows more than the server allows.
    expect(said('ratewise analyze')).toMatch(/^Runs: 2, one after the other on the wall clock/m);
    expect(said('ratewise analyze')).toMatch(new RegExp(`, ${urls.length} ok;`));
    const { stdout } = await exec(process.execPath, [CLI, 'analyze', 'events.jsonl', '--json'], {
      cwd,
    });
    const analysis = JSON.parse(stdout);
    expect(analysis.runs.count).toBe(2);
    expect(analysis.totals.ok).toBe(urls.length);
    expect(analysis.totals.late).toBe(0);
    for (const w of analysis.windows) {
      // 30 a second, fixed windows: a window of d seconds overlaps at most ceil(d) + 1 of them.
      const allowed = 30 * (Math.ceil(w.durationMs / 1000) + 1);
      expect(w.requests - w.failed, `window at +${w.offsetS} s`).toBeLessThanOrEqual(allowed);
    }
    expect(said('ratewise report')).toMatch(/^wrote report\.html/);
    expect(readFileSync(join(cwd, 'report.html'), 'utf8')).toContain('<th>Runs</th>');
  }, 120_000);

  it('command line: probe, diagnose and bench do what they say', async () => {
    const { out, said } = await runCliTour(true, 'cli-tools');
    expect(said('ratewise probe')).toMatch(/verdict: \w+/);
    expect(said('ratewise diagnose')).toMatch(/\nVerdict: /);
    const benches = [...out].filter(([line]) => line.startsWith('ratewise bench'));
    expect(benches).toHaveLength(3);
    for (const [line, output] of benches) expect(output, line).toMatch(/\| ratewise +\|/);
  }, 120_000);

  it('fleet mode: two crawls share the host through Redis, and fleet status shows it', async () => {
    const block = blocks.find((b) => b.lang === 'sh' && /--redis /.test(b.code)) as Block;
    const cwd = join(dir, 'fleet');
    mkdirSync(cwd);
    await redis.stop(); // the block starts its own on this port, and shuts it down
    let out: Map<string, string>;
    try {
      out = await runShell(block.code, cwd);
    } finally {
      // Whatever happened to the block, its Redis goes, and ours comes back for the library block.
      await exec('redis-cli', ['-p', String(redis.port), 'shutdown', 'nosave']).catch(
        () => undefined,
      );
      await redis.start();
    }
    const urls = readFileSync(join(cwd, 'fleet-urls.txt'), 'utf8').trim().split('\n');
    const results = [...jsonLines(join(cwd, 'a.jsonl')), ...jsonLines(join(cwd, 'b.jsonl'))];
    expect(results.map((r) => r.url).sort()).toEqual([...urls].sort());
    expect(results.every((r) => r.status === 200)).toBe(true);
    const status = [...out].find(([line]) => line.startsWith('ratewise fleet status'))?.[1];
    expect(status).toMatch(new RegExp(`^scope .*\\nhost:127\\.0\\.0\\.1:${port} `, 's'));
  }, 120_000);

  it('library: every JavaScript block runs, and shows what it is there for', async () => {
    const js = blocks.filter((b) => b.lang === 'js');
    expect(js.length).toBeGreaterThanOrEqual(3);
    for (const [i, block] of js.entries()) {
      const { stdout, cwd } = await runModule(block.code, `js-${i}`);
      if (block.code.includes("jsonlSink('events.jsonl')")) {
        // The first example: a response, and an events log that is not empty.
        expect(stdout).toMatch(/^200 /);
        const events = jsonLines(join(cwd, 'events.jsonl'));
        expect(events[0]?.type).toBe('run');
        expect(events.some((e) => e.type === 'sample' && e.status === 200)).toBe(true);
      } else if (
        block.code.includes('ratewiseInterceptor(') ||
        block.code.includes('redisFleet(')
      ) {
        expect(stdout).toMatch(/^200 /);
      } else if (block.code.includes('control: (scope)')) {
        // The factory is called for the one scope, and the request goes through it.
        expect(stdout).toMatch(/^new scope host:127\.0\.0\.1:\d+\n200\n$/);
      } else if (block.code.includes('new ScopeController(')) {
        // The limit and the rate the scope controller holds after one report, as the comment says.
        const printed = /console\.log\(scope\.limit, scope\.rate\); \/\/ (.+)$/m.exec(block.code);
        expect(printed?.[1]).toMatch(/^\d+ (\d+(\.\d+)?|Infinity)$/);
        expect(stdout).toBe(`${printed?.[1]}\n`);
      } else if (/from 'ratewise\/|ky\.create\(/.test(block.code)) {
        expect(stdout).toMatch(integrationOutput(block.code));
      }
    }
  }, 120_000);

  it('the practice server stops on Ctrl-C and says what it saw', async () => {
    const exited = new Promise<number | null>((resolve) => server.on('exit', resolve));
    server.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(serverOutput).toMatch(/stopped after \d+ requests \{"200":\d+/);
  });
});
