// Admission overhead and scope memory: `npm run bench` (or `node --expose-gc bench/core.mjs`).
// Every implementation is measured in the same process, interleaved round by round,
// so the ratios hold on a noisy shared machine even when the absolute numbers move.
import pLimit from 'p-limit';
import PQueue from 'p-queue';
import { Semaphore } from '../dist/enforce/semaphore.js';
import {
  AdaptiveRate,
  AimdLimit,
  controlSetup,
  ScopeController,
  ScopeRegistry,
  seededRandom,
  systemClock,
} from '../dist/index.js';

const OPS = 200_000;
const ROUNDS = 7;
const ok = { kind: 'ok', reason: '200', status: 200 };

function controller() {
  return new ScopeController('host:bench', {
    clock: systemClock,
    random: seededRandom(1),
    limit: new AimdLimit({ initialLimit: 32, max: 32 }),
    rate: new AdaptiveRate(),
  });
}

const candidates = {
  'bare Semaphore (acquire + release)': () => {
    const semaphore = new Semaphore(32);
    return async () => {
      await semaphore.acquire();
      semaphore.release();
    };
  },
  // What any admission that records its send time costs at least: the semaphore plus one
  // read of the monotonic clock (the controller reads it once per admission).
  'bare Semaphore + one systemClock.now()': () => {
    const semaphore = new Semaphore(32);
    let sink = 0;
    return async () => {
      await semaphore.acquire();
      sink += systemClock.now();
      semaphore.release();
      return sink;
    };
  },
  'ScopeController (admit + release)': () => {
    const scope = controller();
    return async () => {
      const permit = await scope.admit();
      permit.release();
    };
  },
  'ScopeController (admit + report ok)': () => {
    const scope = controller();
    return async () => {
      const permit = await scope.admit();
      permit.report(ok);
    };
  },
  'p-limit 7 (one task)': () => {
    const limit = pLimit(32);
    const task = () => undefined;
    return () => limit(task);
  },
  'p-queue 9 (one task)': () => {
    const queue = new PQueue({ concurrency: 32 });
    const task = () => undefined;
    return () => queue.add(task);
  },
};

async function timeOps(op) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < OPS; i++) await op();
  return Number(process.hrtime.bigint() - start) / OPS;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function admissionTable() {
  const samples = Object.fromEntries(Object.keys(candidates).map((name) => [name, []]));
  const ops = Object.fromEntries(Object.entries(candidates).map(([name, make]) => [name, make()]));
  for (const op of Object.values(ops)) await timeOps(op); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, op] of Object.entries(ops)) samples[name].push(await timeOps(op));
  }
  const base = median(samples['bare Semaphore (acquire + release)']);
  const pLimitNs = median(samples['p-limit 7 (one task)']);
  console.log(
    `\nAdmission overhead, ${OPS.toLocaleString('en')} ops × ${ROUNDS} rounds, median ns/op`,
  );
  console.log('| implementation | ns/op | × bare semaphore | p-limit ÷ this |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const [name, values] of Object.entries(samples)) {
    const ns = median(values);
    console.log(
      `| ${name} | ${ns.toFixed(0)} | ${(ns / base).toFixed(2)} | ${(pLimitNs / ns).toFixed(2)} |`,
    );
  }
}

async function scopeMemory() {
  const count = 100_000;
  const gc = globalThis.gc;
  if (!gc) {
    console.log('\n(run with node --expose-gc to measure scope memory)');
    return;
  }
  gc();
  const before = process.memoryUsage().heapUsed;
  const registry = new ScopeRegistry({ setup: controlSetup(), idleMs: Infinity });
  for (let i = 0; i < count; i++) await registry.open(`host:site-${i}.example`);
  gc();
  const after = process.memoryUsage().heapUsed;
  const mb = (after - before) / 1024 / 1024;
  console.log(
    `\nMemory: ${registry.size.toLocaleString('en')} live scopes (default controller each) = ${mb.toFixed(1)} MB heap, ${((after - before) / count).toFixed(0)} bytes per scope`,
  );
}

console.log(
  `node ${process.version}, ${(await import('node:os')).cpus()[0].model} × ${(await import('node:os')).cpus().length}`,
);
await admissionTable();
await scopeMemory();
