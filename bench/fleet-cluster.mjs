// The cluster scenario of the fleet benchmark (bench/fleet.mjs): 8 worker processes over 1,000
// scopes on a 3-master Redis Cluster, SCRIPT FLUSH mid-run, and where a slow admission's time
// goes — the workers' own event loops, an idle process's PING, the scripts inside Redis.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createClient as createRedis } from '@redis/client';
import { startRedisCluster } from '../dist/redis/index.js';
import { serveMock, sleep, startWorker, sum } from './fleet-parts.mjs';

const run = promisify(execFile);
const fixed = (x, d = 2) => (x === null || x === undefined ? '-' : Number(x).toFixed(d));

/**
 * A 3-master cluster, `n` workers (`clusterLanes` callers each, started together once all are
 * set up) over 1,000 scopes for 30 s, SCRIPT FLUSH on every master at 15 s; `loopMonitor`
 * false: the workers do not measure their event loops (a timer every ms each).
 */
export async function cluster(clusterLanes, n = 8, loopMonitor = true) {
  const nodes = await startRedisCluster();
  const server = await serveMock(['--model', 'healthy', '--latency', '20']);
  const url = `redis://127.0.0.1:${nodes.nodes[0].port}`;
  const workers = Array.from({ length: n }, () =>
    startWorker({
      origin: server.url,
      durationMs: 30_000,
      lanes: clusterLanes,
      redis: url,
      cluster: true,
      scopes: 1000,
      go: true,
      loopMonitor,
    }),
  );
  // Every worker set up (modules loaded, cluster connected) before any runs: the calls of the
  // first ones do not wait behind the others' start-up on the 2 cores.
  await Promise.all(workers.map((w) => w.ready));
  for (const w of workers) w.go();
  const pings = pingEvery(nodes.nodes, 5);
  await sleep(15_000);
  await Promise.all(
    nodes.nodes.map((n) => run('redis-cli', ['-p', String(n.port), 'SCRIPT', 'FLUSH'])),
  );
  const reports = await Promise.all(workers.map((w) => w.done));
  const ping = await pings.stop();
  const inside = await scriptCostUs(nodes.nodes);
  await server.stop();
  await nodes.close();
  const errors = reports.flatMap((r) => r.errors ?? []);
  return {
    requests: sum(reports, 'requests'),
    failed: sum(reports, 'failed'),
    crossslot: errors.filter((e) => /CROSSSLOT/.test(e)).length,
    leftShared: reports.flatMap((r) => r.modes ?? []).filter((m) => !/joined/.test(m.line)).length,
    callP50: Math.max(...reports.map((r) => r.callP50)),
    callP99: Math.max(...reports.map((r) => r.callP99)),
    // A request's admission: its acquire's round trip (calls begun during the run, not the close).
    acquireP50: Math.max(...reports.map((r) => r.acquireP50 ?? 0)),
    acquireP99: Math.max(...reports.map((r) => r.acquireP99 ?? 0)),
    // With one lane, a request's whole admission: fetch called to headers sent (worst worker).
    admissionP50: Math.max(...reports.map((r) => r.admissionP50 ?? 0)),
    admissionP99: Math.max(...reports.map((r) => r.admissionP99 ?? 0)),
    closeCalls: sum(reports, 'closeCalls'),
    // Admissions that paid a round trip (an acquire asking for leases), per request.
    admissionShare: sum(reports, 'admissionCalls') / Math.max(1, sum(reports, 'requests')),
    // Channel subscriptions (a scope's first admission in a worker waits for one), per request, and their p99.
    subscribes: sum(reports, 'subscribes') / Math.max(1, sum(reports, 'requests')),
    subscribeP99: Math.max(...reports.map((r) => r.subscribeP99 ?? 0)),
    // The workers' own CPU per request (user + system over the run), ms.
    cpuMsPerRequest: sum(reports, 'cpuMs') / Math.max(1, sum(reports, 'requests')),
    roundTrips: sum(reports, 'roundTrips') / Math.max(1, sum(reports, 'requests')),
    byScript: perRequest(reports),
    // Where the tail comes from: each worker's event loop, an idle process's PING, Redis itself.
    loopP99: Math.max(...reports.map((r) => r.loopP99 ?? 0)),
    loopMax: Math.max(...reports.map((r) => r.loopMax ?? 0)),
    perWorker: reports.map(
      (r) =>
        `${fixed(r.callP50, 1)}/${fixed(r.callP99, 0)}/${fixed(r.acquireP99, 0)}/${fixed(r.loopP99, 0)}`,
    ),
    ping,
    inside,
  };
}

/** PINGs every master every `ms` from this (otherwise idle) process: the machine's floor under a round trip. */
function pingEvery(nodes, ms) {
  const times = [];
  let running = true;
  const loops = nodes.map(async (node) => {
    // A loaded machine can take seconds to accept: the default 5 s timeout crashed the bench.
    const client = createRedis({
      url: `redis://127.0.0.1:${node.port}`,
      socket: { connectTimeout: 30_000 },
    });
    await client.connect();
    while (running) {
      const started = performance.now();
      await client.ping();
      times.push(performance.now() - started);
      await sleep(ms);
    }
    await client.destroy();
  });
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      times.sort((a, b) => a - b);
      const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
      return { p50: at(0.5), p99: at(0.99), max: times.at(-1) };
    },
  };
}

/** The scripts' mean cost inside Redis, µs per call (INFO commandstats, all masters). */
async function scriptCostUs(nodes) {
  let calls = 0;
  let usec = 0;
  for (const node of nodes) {
    const { stdout } = await run('redis-cli', ['-p', String(node.port), 'INFO', 'commandstats']);
    for (const m of stdout.matchAll(/cmdstat_eval(?:sha)?:calls=(\d+),usec=(\d+)/g)) {
      calls += Number(m[1]);
      usec += Number(m[2]);
    }
  }
  return calls ? usec / calls : null;
}

/** Calls per request by script (or command), over every worker. */
function perRequest(reports) {
  const calls = {};
  for (const r of reports)
    for (const [name, n] of Object.entries(r.byScript ?? {})) calls[name] = (calls[name] ?? 0) + n;
  const requests = Math.max(1, sum(reports, 'requests'));
  return Object.entries(calls)
    .map(([name, n]) => `${name} ${fixed(n / requests)}`)
    .join(', ');
}
