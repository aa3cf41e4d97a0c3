// Where a fleet script's latency goes: the same acquire call (end the previous request, take one
// lease) run on a single redis-server and on a 3-master cluster, side by side, rounds alternating,
// with PING on the same connection as the floor. Client-side times are what a worker waits;
// Redis's own `usec_per_call` (INFO commandstats) is what the script costs inside Redis — the
// rest is the machine (scheduling, sockets, the client). `npm run build` first.
//   node bench/fleet-script-latency.mjs [--calls 2000] [--scopes 1000] [--rounds 3] [--parallel 1]
import { parseArgs } from 'node:util';
import { createClient, createCluster } from '@redis/client';
import {
  nodeRedisLink,
  scopeKeys,
  startRedisCluster,
  startRedisServer,
} from '../dist/redis/index.js';
import { acquireScript } from '../dist/redis/lua/acquire.js';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '2000' },
    scopes: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    parallel: { type: 'string', default: '1' },
  },
});
const calls = Number(values.calls);
const scopes = Number(values.scopes);
const parallel = Number(values.parallel);

/** The arguments of a steady-state acquire: end lease n - 1 with an outcome, take lease n. */
function acquireArgs(scope, n) {
  const outcome = JSON.stringify({
    s: 1,
    a: 2,
    i: 1,
    g: { kind: 'ok', reason: '200', status: 200 },
  });
  const k = scopeKeys('rw', scope);
  const keys = [k.state, k.leases, k.workers, k.waiting, k.shares, k.samples, k.learner, k.channel];
  const args = ['bench#', 'bench', '5000', '5000', '-1', '8', '0', '86400000', scope, '1', '10000'];
  args.push('0', '1', String(n), '1', '10000', '2000', `bench#${n - 1}`, outcome);
  return { keys, args };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** `calls` calls of `one(i)`, `parallel` at a time; sorted times, ms. */
async function timed(one) {
  const times = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < calls) {
        const i = next++;
        const started = performance.now();
        await one(i);
        times.push(performance.now() - started);
      }
    }),
  );
  return times.sort((a, b) => a - b);
}

/** Redis's own time per EVALSHA call, µs, summed over `clients` (one per node). */
async function serverUsec(clients) {
  let usec = 0;
  let count = 0;
  for (const client of clients) {
    const info = await client.sendCommand(['INFO', 'commandstats']);
    const m = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(String(info));
    if (m) {
      count += Number(m[1]);
      usec += Number(m[2]);
    }
    await client.sendCommand(['CONFIG', 'RESETSTAT']);
  }
  return count ? usec / count : null;
}

async function measure(name, link, nodes) {
  await serverUsec(nodes); // reset
  const scope = (i) => `host:s${i % scopes}`;
  const ping = await timed((i) => link.command(scopeKeys('rw', scope(i)).state, ['PING']));
  const script = await timed((i) => {
    const { keys, args } = acquireArgs(scope(i), Math.floor(i / scopes) + 2);
    return acquireScript.run(link, keys, args);
  });
  const usec = await serverUsec(nodes);
  return { name, ping, script, usec };
}

const single = await startRedisServer();
const cluster = await startRedisCluster();
const plain = createClient({ url: single.url });
await plain.connect();
const grouped = createCluster({
  rootNodes: [{ url: `redis://127.0.0.1:${cluster.nodes[0].port}` }],
});
await grouped.connect();
const perNode = await Promise.all(
  cluster.nodes.map(async (node) => {
    const client = createClient({ url: node.url });
    await client.connect();
    return client;
  }),
);
const fmt = (x) => x.toFixed(2);
console.log(
  `${calls} calls per round over ${scopes} scopes, ${parallel} at a time; load average ${(await import('node:os')).loadavg().map(fmt).join(' ')}`,
);
console.log(
  '| round | Redis | PING p50 / p99 ms | script p50 / p99 / max ms | inside Redis µs/call |',
);
console.log('| ---: | --- | ---: | ---: | ---: |');
try {
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const r of [
      await measure('single node', nodeRedisLink(plain), [plain]),
      await measure('3-master cluster', nodeRedisLink(grouped), perNode),
    ])
      console.log(
        `| ${round} | ${r.name} | ${fmt(quantile(r.ping, 0.5))} / ${fmt(quantile(r.ping, 0.99))} | ${fmt(quantile(r.script, 0.5))} / ${fmt(quantile(r.script, 0.99))} / ${fmt(r.script.at(-1))} | ${r.usec === null ? '-' : r.usec.toFixed(1)} |`,
      );
  }
} finally {
  for (const client of [plain, grouped, ...perNode]) await client.close().catch(() => undefined);
  await single.close();
  await cluster.close();
}
