// Where a fleet's goodput goes: n worker processes (bench/fleet-worker.mjs) against one serve-mock
// server, sharing through a real redis-server (or alone), with a timeline every second: what the
// server accepted and refused, and the fleet's numbers in Redis (rate, window, leases held,
// epoch, pause, learned-state version), then each worker's own controller per second (rate, limit,
// ms paused, where its lanes were: bench/fleet-worker.mjs's timeline). `npm run build` first.
// `--trace FILE` (with Redis) appends the run as one JSON line: the fleet rate algorithm's stored
// state each time it changed (polled every 20 ms: ceiling, margin, probe, recount…) and every
// send time by worker, wall ms — a refusal's cause read from the decisions and the sends together.
//   node bench/fleet-timeline.mjs [--workers 8] [--seconds 30] [--alone] [--lanes 8] [--lease-min n] [--horizon ms]
//     [--trace FILE] [-- serve-mock args…]        (default: --model fixed-window --rate 30 --latency 100)
import { appendFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readFleetStatus, redisFleet, scopeKeys, startRedisServer } from '../dist/redis/index.js';
import { serveMock, sleep, startWorker, sum } from './fleet-parts.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    workers: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '30' },
    lanes: { type: 'string', default: '8' },
    alone: { type: 'boolean', default: false },
    'lease-min': { type: 'string' },
    horizon: { type: 'string' },
    trace: { type: 'string' },
  },
});
const serverArgs = positionals.length
  ? positionals
  : ['--model', 'fixed-window', '--rate', '30', '--latency', '100'];
const n = Number(values.workers);
const seconds = Number(values.seconds);

const redis = values.alone ? undefined : await startRedisServer();
const watcher = redis ? redisFleet({ url: redis.url, log: () => undefined }) : undefined;
await watcher?.ready;
const server = await serveMock(serverArgs);
const workers = Array.from({ length: n }, () =>
  startWorker({
    origin: server.url,
    durationMs: seconds * 1000,
    lanes: Number(values.lanes),
    ...(redis ? { redis: redis.url } : {}),
    ...(values['lease-min'] ? { rateLeaseMinRequests: Number(values['lease-min']) } : {}),
    ...(values.horizon ? { horizonMs: Number(values.horizon) } : {}),
    timeline: true,
    ...(values.trace ? { sends: true } : {}),
  }),
);
const fmt = (x, d = 1) => (x === null || x === undefined ? '-' : Number(x).toFixed(d));
console.log(
  '  t | ok/s | refused/s | rate | window | leased | epoch | pause ms | version | Redis calls/s | ceiling | margin',
);
/** The learned ceiling and margin of the fleet's rate algorithm (its stored state). */
const learned = async (scope) => {
  const key = scopeKeys('rw', scope).state;
  const alg = await watcher.link.command(key, ['HGET', key, 'alg']);
  try {
    return JSON.parse(String(alg)).rate ?? {};
  } catch {
    return {};
  }
};
/** Scripts Redis ran so far (EVALSHA and EVAL), from its own command statistics. */
const scriptCalls = async () => {
  if (!watcher) return 0;
  const info = String(await watcher.link.command(undefined, ['INFO', 'commandstats']));
  return [...info.matchAll(/cmdstat_eval(?:sha)?:calls=(\d+)/g)].reduce(
    (a, m) => a + Number(m[1]),
    0,
  );
};
/** The stored state of the fleet's rate algorithm each time it changed, `[wall ms, state]`. */
const states = [];
let tracing = values.trace !== undefined && watcher !== undefined;
const trace = async () => {
  let key;
  while (tracing) {
    key ??= await readFleetStatus(watcher.link).then(([s]) => s && scopeKeys('rw', s.scope).state);
    const alg = key && String(await watcher.link.command(key, ['HGET', key, 'alg']));
    if (alg && alg !== 'null' && alg !== states.at(-1)?.[1]) states.push([Date.now(), alg]);
    await sleep(20);
  }
};
const traced = trace();
const startedAt = Date.now();
let calls = await scriptCalls();
let last = await server.stats();
const first = last;
for (let t = 1; t <= seconds; t++) {
  await sleep(1000);
  const now = await server.stats();
  const ok = (now.byStatus['200'] ?? 0) - (last.byStatus['200'] ?? 0);
  const refused = now.arrivals - last.arrivals - ok;
  last = now;
  const callsNow = await scriptCalls();
  const perSecond = callsNow - calls;
  calls = callsNow;
  const [s] = watcher ? await readFleetStatus(watcher.link) : [];
  const leased = s ? Object.values(s.inflight).reduce((a, b) => a + b, 0) : undefined;
  const alg = s ? await learned(s.scope) : {};
  console.log(
    `${String(t).padStart(3)} | ${String(ok).padStart(4)} | ${String(refused).padStart(9)} | ${fmt(s?.rate)} | ${s?.window ?? '-'} | ${leased ?? '-'} | ${s?.epoch ?? '-'} | ${s?.pausedForMs ?? '-'} | ${s?.version ?? '-'} | ${watcher ? perSecond : '-'} | ${fmt(alg.ceiling, 2)} | ${fmt(alg.margin, 4)}`,
  );
}
tracing = false;
await traced;
const reports = await Promise.all(workers.map((w) => w.done));
if (values.trace) {
  const sends = reports.map((r) => r.sends ?? []);
  const learned = states.map(([at, alg]) => [at, JSON.parse(alg).rate ?? {}]);
  appendFileSync(values.trace, `${JSON.stringify({ workers: n, startedAt, learned, sends })}\n`);
}
const byScript = {};
for (const r of reports)
  for (const [name, n] of Object.entries(r.byScript ?? {}))
    byScript[name] = (byScript[name] ?? 0) + n;
const requests = Math.max(1, sum(reports, 'requests'));
console.log(
  `calls per request: ${Object.entries(byScript)
    .map(([name, n]) => `${name} ${fmt(n / requests, 2)}`)
    .join(', ')}`,
);
const okAll = (last.byStatus['200'] ?? 0) - (first.byStatus['200'] ?? 0);
console.log(
  `ok ${okAll} in ${seconds} s; requests ${sum(reports, 'requests')}; round trips/request ${fmt(sum(reports, 'roundTrips') / Math.max(1, sum(reports, 'requests')), 2)}; failed ${sum(reports, 'failed')}`,
);
for (const r of reports) {
  console.log(
    `worker ${r.pid} (seconds from its own start): t | ok | refused | rate min-max | ceiling | margin | limit | ms paused | in flight (most) | queued locally (most) | waiting on the fleet (mean)`,
  );
  for (const w of r.timeline ?? [])
    console.log(
      `${String(w.t).padStart(3)} | ${String(w.ok).padStart(3)} | ${w.refused} | ${fmt(w.rateMin)}-${fmt(w.rateMax)} | ${fmt(w.ceiling, 2)} | ${fmt(w.margin, 4)} | ${w.limit} | ${w.pausedMs} | ${w.inflight} | ${w.queued} | ${fmt(w.fleetWait)}`,
    );
}
for (const r of reports)
  console.log(
    `worker ${r.pid}: ${r.requests} requests, ${r.roundTrips} round trips, call p50 ${fmt(r.callP50)} p99 ${fmt(r.callP99)} max ${fmt(r.callMax)} ms, ${r.modes?.length ?? 0} mode switches${r.modes?.length ? `: ${r.modes.map((m) => m.line).join(' | ')}` : ''}`,
  );
await server.stop();
await watcher?.close();
await redis?.close();
