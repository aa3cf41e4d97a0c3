// Memory and time under load that grows: `npm run build && node bench/memory.mjs`.
//  - hosts: 1,000,000 distinct hosts through createClient (an in-process dispatcher answers
//    each at once, so the figures are ratewise's own, without sockets), with the default
//    idleMs and with idleMs 10 s; heap and RSS after a GC every 100,000 hosts.
//  - scopes: bytes of heap per live scope, idle (opened through the registry, default controller)
//    and after serving requests (createClient fetches: one to each of 50,000 hosts, then 5 and
//    20 to each of 20,000, the client's share included): `node bench/memory.mjs scopes` alone
//    prints only these.
//  - bodies: `--save-bodies` crawls of 100 chunked bodies (16 KiB chunks) of 12.5, 25 and 50 MB
//    from a hostile server in another process, each beside the same crawl reading the bodies
//    without saving them: wall time, CPU time, peak RSS.
// Each part runs in a process of its own. Results belong in BENCHMARKS.md.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { instantDispatcher } from './harness.mjs';

const [part, arg] = process.argv.slice(2);
const dist = new URL('../dist/', import.meta.url);
const MB = 1_048_576;

if (part === 'hosts') await hosts(arg === 'default' ? undefined : Number(arg));
else if (part === 'scopes') scopesAll();
else if (part === 'scope') await scopeBytes(arg, Number(process.argv[4]), Number(process.argv[5]));
else if (part === 'bodies') await bodies(Number(arg), process.argv[4] === 'save');
else if (part === undefined) runAll();
else throw new Error(`unknown part ${part}`);

function runAll() {
  console.log(
    `# bench/memory.mjs — node ${process.version}, ${cpus()[0]?.model} × ${cpus().length}`,
  );
  scopesAll();
  console.log('\n1,000,000 distinct hosts through createClient (in-process dispatcher)\n');
  console.log('| idleMs | hosts | live scopes | saved states | heap MB | RSS MB | s |');
  console.log('| -----: | ----: | ----------: | -----------: | ------: | -----: | -: |');
  for (const idle of ['default', '10000']) child(['--expose-gc', 'hosts', idle]);
  console.log(
    '\n`--save-bodies` crawl of 100 chunked bodies (16 KiB chunks), hostile server in another process\n',
  );
  console.log('| body | saved | total GB | wall s | s per GB | CPU s per GB | peak RSS MB |');
  console.log('| ---: | ----: | -------: | -----: | -------: | -----------: | ----------: |');
  for (const mb of [12.5, 25, 50]) {
    for (const mode of ['read only', 'save']) child(['bodies', String(mb), mode]);
  }
}

function scopesAll() {
  console.log('\nHeap per live scope, after a GC\n');
  console.log('| scope | bytes per scope |');
  console.log('| ----- | --------------: |');
  child(['--expose-gc', 'scope', 'idle', '50000']);
  for (const [count, requests] of [
    [50_000, 1],
    [20_000, 5],
    [20_000, 20],
  ]) {
    child(['--expose-gc', 'scope', 'served', String(count), String(requests)]);
  }
}

/** Heap per scope: `count` scopes opened idle, or each after serving `requests` requests. */
async function scopeBytes(kind, count, requests) {
  const { controlSetup, createClient, ScopeRegistry } = await import(new URL('index.js', dist));
  const gc = globalThis.gc;
  gc();
  const before = process.memoryUsage().heapUsed;
  let keep;
  if (kind === 'idle') {
    keep = new ScopeRegistry({ setup: controlSetup(), idleMs: Infinity });
    for (let i = 0; i < count; i++) await keep.open(`host:site-${i}.example`);
  } else {
    keep = createClient({ dispatcher: instantDispatcher(), idleMs: Infinity });
    for (let i = 0; i < count; i++) {
      for (let n = 0; n < requests; n++) {
        const response = await keep.fetch(`http://site-${i}.example/${n}`);
        await response.arrayBuffer();
      }
    }
  }
  gc();
  const bytes = (process.memoryUsage().heapUsed - before) / count;
  const served = kind === 'idle' ? 'idle' : `served ${requests}`;
  const live = keep.registry?.size ?? keep.size;
  console.log(`| ${served} (${live.toLocaleString('en')} live) | ${bytes.toFixed(0)} |`);
}

function child(args) {
  const flags = args[0] === '--expose-gc' ? [args.shift()] : [];
  const { status } = spawnSync(
    process.execPath,
    [...flags, new URL(import.meta.url).pathname, ...args],
    {
      stdio: 'inherit',
    },
  );
  if (status !== 0) process.exitCode = status ?? 1;
}

async function hosts(idleMs) {
  const { createClient, MemoryStore } = await import(new URL('index.js', dist));
  const store = new MemoryStore(); // the default store, kept at hand to count what it holds
  let now = 0; // 1 ms per request: 1,000 new hosts a second
  const clock = {
    now: () => now,
    wallNow: () => Date.UTC(2026, 0, 1) + now,
    setTimer(ms, callback) {
      const handle = setTimeout(callback, Math.min(ms, 2 ** 31 - 1));
      return () => clearTimeout(handle);
    },
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
  const client = createClient({
    dispatcher: instantDispatcher(),
    clock,
    store,
    ...(idleMs === undefined ? {} : { idleMs }),
  });
  const started = performance.now();
  for (let i = 1; i <= 1_000_000; i++) {
    now += 1;
    const response = await client.fetch(`http://h${i}.example/`);
    await response.arrayBuffer();
    if (i % 100_000 === 0) {
      await client.registry.sweep(); // what the next admission would start; waited for here
      globalThis.gc?.();
      const { heapUsed, rss } = process.memoryUsage();
      const row = [
        idleMs ?? '600000 (default)',
        i.toLocaleString('en'),
        client.registry.size.toLocaleString('en'),
        store.size.toLocaleString('en'),
        (heapUsed / MB).toFixed(0),
        (rss / MB).toFixed(0),
        ((performance.now() - started) / 1000).toFixed(1),
      ];
      console.log(`| ${row.join(' | ')} |`);
    }
  }
  await client.close();
}

async function bodies(mb, save) {
  const { runCrawl } = await import(new URL('crawl/run-crawl.js', dist));
  const serverCode = `import(${JSON.stringify(new URL('testing/index.js', dist).href)}).then(async ({ startHostileServer }) => {
    const s = await startHostileServer();
    console.log(s.url);
  });`;
  const server = spawn(process.execPath, ['-e', serverCode], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((resolve) =>
    server.stdout.once('data', (data) => resolve(String(data).trim())),
  );
  const dir = mkdtempSync(join(tmpdir(), 'ratewise-bodies-bench-'));
  try {
    const bytes = Math.round(mb * MB);
    const urls = Array.from(
      { length: 100 },
      (_, i) => `${url}/chunked?bytes=${bytes}&chunk=16384&n=${i}`,
    );
    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 100);
    const started = performance.now();
    const cpu = process.cpuUsage();
    const summary = await runCrawl({
      urls,
      ...(save ? { saveBodies: join(dir, 'bodies') } : {}),
      out: join(dir, 'out.jsonl'),
      client: { maxBodyBytes: 64 * MB },
    });
    const seconds = (performance.now() - started) / 1000;
    const { user, system } = process.cpuUsage(cpu);
    clearInterval(sampler);
    peak = Math.max(peak, process.resourceUsage().maxRSS * 1024);
    const saved = save
      ? readdirSync(join(dir, 'bodies')).filter((name) => name.endsWith('.body')).length
      : 0;
    if ((save && saved !== 100) || summary.ok !== 100 || summary.failed !== 0)
      throw new Error(`ok ${summary.ok}, saved ${saved}, failed ${summary.failed}`);
    const gb = (100 * bytes) / 1e9;
    const row = [
      `${mb} MB`,
      save ? saved : 'read only',
      gb.toFixed(2),
      seconds.toFixed(1),
      (seconds / gb).toFixed(2),
      ((user + system) / 1e6 / gb).toFixed(2),
      (peak / MB).toFixed(0),
    ];
    console.log(`| ${row.join(' | ')} |`);
  } finally {
    server.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
