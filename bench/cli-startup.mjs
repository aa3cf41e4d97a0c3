// CLI startup: how long `ratewise` takes to start, per command, and how many modules it loads.
// `npm run build && node bench/cli-startup.mjs [--runs N] [--dist DIR]... [--modules]` spawns
// each command line of CASES N times (default 15, after one warm-up; with several --dist, their
// runs alternate A B A B … so machine drift hits each alike) and prints a Markdown table: per
// command and dist, the median and p90 wall ms of the whole process, its exit code when not 0,
// and the modules it loaded (files of dist/ and node_modules, ES and CommonJS), counted in one
// more run through test/cli/list-modules.mjs, so the hook's cost is not in the times.
// `--modules` adds, per command and dist, the modules per dist folder and package. Default
// dist: this checkout's dist/; compare with main's: build it elsewhere
// (`npx tsc -p tsconfig.build.json --outDir node_modules/.dists/main` in main) and pass both.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '15' },
    dist: { type: 'string', multiple: true },
    modules: { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const dists = (values.dist ?? [fileURLToPath(new URL('../dist/', import.meta.url))]).map((d) =>
  resolve(d),
);
const work = mkdtempSync(join(tmpdir(), 'ratewise-cli-startup-'));
const log = join(work, 'small.log');
writeFileSync(log, smallLog(300));

/** Lists what a process loads (ESM and CommonJS) into the file in $LIST_MODULES. */
const LIST_MODULES = fileURLToPath(new URL('../test/cli/list-modules.mjs', import.meta.url));

/** The command lines timed: help, a command's help, usage errors, one small real command. */
const CASES = [
  ['--help'],
  ['crawl', '--help'],
  ['bench', '--help'],
  ['report', '--help'],
  ['crawl', 'urls.txt', '--concurrency', 'x'],
  ['analyze', log, '--window', 'abc'],
  ['analyze', log],
  ['analyze', log, '--json'],
];

try {
  const header = ['command', ...dists.flatMap((d) => [`${label(d)} median`, 'p90', 'modules'])];
  console.log(`${runs} runs each, node ${process.version}, ${new Date().toISOString()}`);
  console.log(`| ${header.join(' | ')} |`);
  console.log(`| --- ${'| ---: '.repeat(header.length - 1)}|`);
  for (const args of CASES) {
    const cells = timeAlternating(args).flatMap(({ wall, code, modules }) => [
      `${percentile(wall, 0.5).toFixed(0)} ms${code === 0 ? '' : ` (exit ${code})`}`,
      `${percentile(wall, 0.9).toFixed(0)} ms`,
      String(modules.size),
    ]);
    console.log(`| ${shown(args)} | ${cells.join(' | ')} |`);
  }
  if (values.modules) {
    for (const args of CASES) {
      for (const dist of dists) {
        const modules = loadedModules(dist, args);
        console.log(`\n${label(dist)} ${shown(args)}: ${breakdown(dist, modules)}`);
      }
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** Times `args` on every dist, runs interleaved; one more run per dist counts its modules. */
function timeAlternating(args) {
  const results = dists.map((dist) => ({ dist, wall: [], code: 0, modules: new Set() }));
  for (let run = -1; run < runs; run++) {
    for (const result of results) {
      const started = performance.now();
      const child = spawnSync(process.execPath, [join(result.dist, 'cli', 'main.js'), ...args], {
        cwd: work,
        stdio: 'ignore',
      });
      if (run >= 0) result.wall.push(performance.now() - started);
      result.code = child.status;
    }
  }
  for (const result of results) result.modules = loadedModules(result.dist, args);
  return results;
}

/** The files (dist and node_modules) one run of `args` loads, through ESM or require. */
function loadedModules(dist, args) {
  const file = join(work, 'modules.txt');
  writeFileSync(file, '');
  spawnSync(process.execPath, ['--import', LIST_MODULES, join(dist, 'cli', 'main.js'), ...args], {
    cwd: work,
    stdio: 'ignore',
    env: { ...process.env, LIST_MODULES: file },
  });
  return new Set(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((url) => url.startsWith('file:')),
  );
}

/** Modules per top folder of the dist or per package (node_modules), most first. */
function breakdown(dist, modules) {
  const root = `${realpathSync(dist)}/`;
  const groups = new Map();
  for (const url of modules) {
    const path = fileURLToPath(url);
    const group = path.startsWith(root)
      ? `dist/${distFolder(path.slice(root.length))}`
      : (path.match(/.*node_modules\/((?:@[^/]+\/)?[^/]+)\//)?.[1] ?? path);
    groups.set(group, (groups.get(group) ?? 0) + 1);
  }
  const sorted = [...groups].sort((a, b) => b[1] - a[1]);
  return `${modules.size} modules: ${sorted.map(([group, n]) => `${group} ${n}`).join(', ')}`;
}

/** The top folder of a path inside the dist, `*.js` for its top files. */
function distFolder(path) {
  return path.includes('/') ? path.split('/')[0] : '*.js';
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
}

/** A dist's name in the table: its folder, or its parent's when it is called dist. */
function label(dist) {
  const parts = dist.split('/').filter(Boolean);
  return parts.at(-1) === 'dist' ? parts.at(-2) : parts.at(-1);
}

function shown(args) {
  return `\`${args.map((a) => (a === log ? 'small.log' : a)).join(' ')}\``;
}

/** `count` lines of the "ISO8601 url latency_ms" log format, 10 a second over two hosts. */
function smallLog(count) {
  const start = Date.parse('2026-01-01T00:00:00Z');
  const lines = [];
  for (let i = 0; i < count; i++) {
    const when = new Date(start + i * 100).toISOString();
    lines.push(`${when} https://${i % 2 ? 'a' : 'b'}.example/${i} ${100 + (i % 7) * 10}`);
  }
  return `${lines.join('\n')}\n`;
}
