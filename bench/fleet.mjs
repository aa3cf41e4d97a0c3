// Fleet mode on Redis (issue 12), measured with real processes: worker processes
// (bench/fleet-worker.mjs) crawl a real loopback server (serve-mock, or a scripted server where
// a scenario needs exact timing), sharing their scopes through a real redis-server — or not,
// for the side-by-side ratio. `npm run build` first. Run all, or name scenarios:
//   node bench/fleet.mjs [throughput] [skew] [cap] [pause] [burst] [kill] [outage] [cluster]
//     [--workers=1,4,8] [--shared-only | --alone-only] [--seconds=45] [--steady-from=20] [--runs=1] [--long]
//     [--cluster-lanes=8] [--cluster-workers=8] [--no-loop-monitor]
//     [--sends-out=FILE] (each throughput run's send times, JSON lines)
// --long is the issue's steady state: 90 s runs, steady 20-90 s (a window that holds the probe
// cycle), 3 runs per row, unless --seconds / --runs say otherwise. Under the bench lock, one fleet
// size per invocation keeps each hold under ~5 min: for n in 1 4 8; do flock
// /tmp/ratewise-bench.lock node bench/fleet.mjs throughput --long --workers=$n --shared-only; done
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createClient as createRedis } from '@redis/client';
import { readFleetStatus, redisFleet, scopeKeys, startRedisServer } from '../dist/redis/index.js';
import { cluster } from './fleet-cluster.mjs';
import {
  runWorkers,
  scriptedServer,
  serveMock,
  sleep,
  spacing,
  startWorker,
  sum,
} from './fleet-parts.mjs';

const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
const chosen = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flag = (name, fallback) =>
  flags.find((f) => f.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
/** `--workers=4,8`: the fleet sizes of the throughput scenario; `--shared-only`: no "alone" rows. */
const sizes = flag('workers', '1,4,8').split(',').map(Number);
/** `--cluster-lanes=1`: callers per worker in the cluster scenario (8: flat out on 2 cores). */
const clusterLanes = Number(flag('cluster-lanes', '8'));
/** `--cluster-workers=2`: worker processes in the cluster scenario. */
const clusterWorkers = Number(flag('cluster-workers', '8'));
/** `--no-loop-monitor`: the cluster's workers do not measure their event loops (a 1 ms timer each). */
const loopMonitor = !flags.includes('--no-loop-monitor');
const sharedOnly = flags.includes('--shared-only');
/** `--alone-only`: the throughput scenario's "alone" rows only (no Redis). */
const aloneOnly = flags.includes('--alone-only');
/** `--sends-out=FILE`: appends each throughput run's send times (wall ms, by worker) and steady span. */
const sendsOut = flag('sends-out', undefined);
const wants = (name) => chosen.length === 0 || chosen.includes(name);
const pct = (x) => `${(100 * x).toFixed(1)} %`;
const fixed = (x, d = 2) => (x === null || x === undefined ? '-' : Number(x).toFixed(d));

/** `--long`: the issue's steady state (90 s runs, 3 per row) unless `--seconds` / `--runs` say otherwise. */
const long = flags.includes('--long');
/** `--seconds=45`: each throughput run's length, counted from when every worker is set up. */
const seconds = Number(flag('seconds', long ? '90' : '45'));
/** `--runs=1`: throughput runs per row (fleet size and sharing), each printed, then summed up. */
const runs = Number(flag('runs', long ? '3' : '1'));
/** `--steady-from=20`: the steady state starts this many seconds into the run. */
const steadyFrom = Number(flag('steady-from', '20'));

/**
 * A fixed-window server of 30 req/s (100 ms latency), n workers. The run starts once every
 * worker is set up (modules loaded, Redis connected: up to ~15 s on a loaded machine), lasts
 * `seconds`, and is counted by the server twice: over the whole run from the first request
 * (a cold start: nothing learned yet) and in steady state (from `steadyFrom` s to the end).
 */
async function throughput(n, redis, skew = false) {
  const server = await serveMock(['--model', 'fixed-window', '--rate', '30', '--latency', '100']);
  const spawnedAt = performance.now();
  const workers = Array.from({ length: n }, (_, i) =>
    startWorker({
      origin: server.url,
      durationMs: seconds * 1000,
      lanes: 8,
      go: true,
      ...(redis ? { redis: redis.url } : {}),
      skewMs: skew ? (i % 2 === 0 ? 5000 : -5000) : 0,
      sends: true,
    }),
  );
  await Promise.all(workers.map((w) => w.ready));
  const startupMs = performance.now() - spawnedAt;
  const s0 = await server.stats();
  for (const w of workers) w.go();
  await sleep(steadyFrom * 1000);
  const s1 = await server.stats();
  const steadyAt = Date.now();
  await sleep((seconds - steadyFrom) * 1000);
  const s2 = await server.stats();
  const steadyTo = Date.now();
  const reports = await Promise.all(workers.map((w) => w.done));
  await server.stop();
  const inside = redis ? await redisSide(redis) : undefined;
  if (sendsOut) {
    const sends = reports.map((r) => r.sends ?? []);
    appendFileSync(sendsOut, `${JSON.stringify({ workers: n, steadyAt, steadyTo, sends })}\n`);
  }
  const share = (a, b, s) => {
    const ok = (b.byStatus['200'] ?? 0) - (a.byStatus['200'] ?? 0);
    const refused = (b.byStatus['429'] ?? 0) - (a.byStatus['429'] ?? 0);
    return { goodput: ok / s / 30, refused: refused / Math.max(1, b.arrivals - a.arrivals) };
  };
  return {
    workers: n,
    mode: redis ? (skew ? 'Redis, clocks ±5 s' : 'Redis') : 'alone',
    startupMs,
    whole: share(s0, s2, seconds),
    steady: share(s1, s2, seconds - steadyFrom),
    roundTrips: sum(reports, 'roundTrips') / Math.max(1, sum(reports, 'requests')),
    failed: sum(reports, 'failed'),
    switches: reports.flatMap((r) => r.modes ?? []).filter((m) => !/joined/.test(m.line)).length,
    callP99: Math.max(...reports.map((r) => r.callP99 ?? 0)),
    callMax: Math.max(...reports.map((r) => r.callMax ?? 0)),
    slow: `${sum(reports, 'callsOver100')}/${sum(reports, 'callsOver300')}`,
    loopP99: Math.max(...reports.map((r) => r.loopP99 ?? 0)),
    loopMax: Math.max(...reports.map((r) => r.loopMax ?? 0)),
    perWorker: reports.map((r) => r.requests ?? 0),
    spaced: spacing(reports, steadyAt, steadyTo),
    cpuMsPerRequest: sum(reports, 'cpuMs') / Math.max(1, sum(reports, 'requests')),
    // Acquires that asked for leases (a round trip a request waited on), per request.
    admissionCalls: sum(reports, 'admissionCalls') / Math.max(1, sum(reports, 'requests')),
    // Why workers left shared mode: ms since Redis last answered / of them the worker's own delay.
    left: reports
      .flatMap((r) => r.modes ?? [])
      .map((m) => /nothing heard for (\d+) ms, (\d+) ms/.exec(m.line))
      .filter(Boolean)
      .map((m) => `${m[1]}/${m[2]}`),
    inside,
  };
}

/**
 * What Redis itself spent (emptied before each run): scripts' mean µs per call and slowest
 * calls (SLOWLOG, over 10 ms), and its CPU seconds — whether a slow reply was a slow script or
 * Redis waiting for a core.
 */
async function redisSide(redis) {
  const client = createRedis({ url: redis.url });
  await client.connect();
  const stats = await client.info('commandstats');
  const cpu = await client.info('cpu');
  const slow = await client.sendCommand(['SLOWLOG', 'GET', '1000']);
  await client.close();
  let [calls, usec] = [0, 0];
  for (const m of stats.matchAll(/cmdstat_eval(?:sha)?:calls=(\d+),usec=(\d+)/g)) {
    calls += Number(m[1]);
    usec += Number(m[2]);
  }
  const seconds = (name) => Number(new RegExp(`${name}:([\\d.]+)`).exec(cpu)?.[1] ?? 0);
  const slowest = Math.max(0, ...slow.map((entry) => Number(entry[2]) / 1000));
  return {
    usecPerCall: calls ? usec / calls : 0,
    cpuS: seconds('used_cpu_sys') + seconds('used_cpu_user'),
    slowOver10: slow.length,
    slowestMs: slowest,
  };
}

/** The Redis side of a row (see {@link redisSide}). */
const inside = (x) =>
  x
    ? `${fixed(x.usecPerCall, 0)}, ${fixed(x.cpuS, 1)}, ${x.slowOver10} (${fixed(x.slowestMs, 0)})`
    : '-';

function printThroughput(rows) {
  const left = rows.filter((r) => r.left.length > 0);
  for (const r of left)
    console.log(
      `${r.workers} workers, ${r.mode}: left shared mode after ms silent / of them the worker's own delay: ${r.left.join(', ')}`,
    );
  console.log(
    `| workers | sharing | start-up s | goodput whole run (0-${seconds} s) / steady (${steadyFrom}-${seconds} s) | refused whole / steady | Redis round trips / request | failed | mode switches | script p99 / max ms | calls > 100 / > 300 ms | event-loop p99 / max ms | inside Redis: µs per script, CPU s, calls > 10 ms (slowest ms) | requests per worker (min-max) | steady: most sends in 1 s, bunched, gap p5-p95 ms | workers' CPU ms / request | admission round trips / request |`,
  );
  console.log(
    '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const r of rows) {
    const alone = r.mode === 'alone';
    console.log(
      `| ${r.workers} | ${r.mode} | ${fixed(r.startupMs / 1000, 1)} | ${pct(r.whole.goodput)} / ${pct(r.steady.goodput)} | ${pct(r.whole.refused)} / ${pct(r.steady.refused)} | ${alone ? '-' : fixed(r.roundTrips)} | ${r.failed} | ${alone ? '-' : r.switches} | ${alone ? '-' : `${fixed(r.callP99, 1)} / ${fixed(r.callMax, 0)}`} | ${alone ? '-' : r.slow} | ${fixed(r.loopP99, 0)} / ${fixed(r.loopMax, 0)} | ${inside(r.inside)} | ${Math.min(...r.perWorker)}-${Math.max(...r.perWorker)} | ${r.spaced.most}, ${pct(r.spaced.bunched)}, ${fixed(r.spaced.gapP5, 1)}-${fixed(r.spaced.gapP95, 1)} | ${fixed(r.cpuMsPerRequest)} | ${alone ? '-' : fixed(r.admissionCalls)} |`,
    );
  }
}

/**
 * Each row's runs summed up (`--runs` > 1): steady goodput and refused share as the mean and the
 * range of the runs, so one probe landing in or out of a run's window is read as what it is.
 */
function printRuns(rows) {
  console.log(
    `| workers | sharing | runs | steady goodput (${steadyFrom}-${seconds} s) mean (min-max) | steady refused mean (min-max) | goodput whole run mean |`,
  );
  console.log('| ---: | --- | ---: | ---: | ---: | ---: |');
  const keys = [...new Set(rows.map((r) => `${r.workers}|${r.mode}`))];
  for (const key of keys) {
    const same = rows.filter((r) => `${r.workers}|${r.mode}` === key);
    const spread = (values) =>
      `${pct(values.reduce((a, b) => a + b, 0) / values.length)} (${pct(Math.min(...values))}-${pct(Math.max(...values))})`;
    const whole = same.reduce((a, r) => a + r.whole.goodput, 0) / same.length;
    console.log(
      `| ${same[0].workers} | ${same[0].mode} | ${same.length} | ${spread(same.map((r) => r.steady.goodput))} | ${spread(same.map((r) => r.steady.refused))} | ${pct(whole)} |`,
    );
  }
}

/** 8 workers against a server that refuses (503) past 8 requests at once, 20 s. */
async function cap(redis) {
  const server = await serveMock([
    '--model',
    'concurrency-cap',
    '--param',
    'limit=8',
    '--latency',
    '100',
  ]);
  const reports = await runWorkers(8, {
    origin: server.url,
    durationMs: 20_000,
    lanes: 8,
    maxConcurrency: 8,
    ...(redis ? { redis: redis.url } : {}),
  });
  const stats = await server.stats();
  await server.stop();
  return {
    mode: redis ? 'Redis' : 'alone',
    maxInFlight: stats.maxInFlight,
    refused: stats.byStatus['503'] ?? 0,
    ok: sum(reports, 'ok'),
  };
}

/** 8 workers; 5 s after the first arrival, one request gets 429 Retry-After: 10. When does the server hear from anyone again? */
async function pause(redis) {
  let refusedAt;
  let firstAt;
  const server = await scriptedServer((_request, at) => {
    firstAt ??= at; // 8 processes take seconds to start on a loaded machine: 5 s into the run
    if (refusedAt === undefined && at > firstAt + 5000) {
      refusedAt = at;
      return { status: 429, headers: { 'retry-after': '10' } };
    }
    return { status: 200, holdMs: 50 };
  });
  const reports = await runWorkers(8, {
    origin: server.url,
    durationMs: 22_000,
    lanes: 4,
    redis: redis.url,
  });
  await server.close();
  const during = server.arrivals
    .map((t, i) => ({ t, pid: Number(server.paths[i].split('/')[1]) }))
    .filter(({ t }) => t > refusedAt && t < refusedAt + 9800);
  const next = server.arrivals.find((t) => t > refusedAt + 200);
  // The first arrival after the requests already on their way when the 429 came (the pause's end).
  const resumed = server.arrivals.find((t) => t > refusedAt + 1000);
  // Which worker sent each, and whether it had left shared mode by then.
  const local = new Set(
    reports.filter((r) => r.modes.some((m) => /unreachable/.test(m.line))).map((r) => r.pid),
  );
  return {
    during: during.map(
      ({ t, pid }) => `${Math.round(t - refusedAt)}${local.has(pid) ? ' (local)' : ''}`,
    ),
    silenceMs: next - refusedAt,
    resumedMs: resumed - refusedAt,
    switches: reports.flatMap((r) => r.modes).filter((m) => !/joined/.test(m.line)).length,
  };
}

/** 64 requests in flight across 8 workers; 50 of them answered 429 at the same moment. How many cuts? */
async function burst(redis) {
  const held = [];
  let fired = false;
  let t0 = 0;
  // Every request is held 300 ms; 4 s in, once 56 are held (of 64 lanes; a loaded machine rarely has all 64 at the server at once), 50 of them are answered 429 at once.
  let most = 0;
  const http = createServer((_request, response) => {
    held.push(response);
    most = Math.max(most, held.length);
    if (!fired && held.length >= 56 && performance.now() - t0 > 4000) {
      fired = true;
      for (const r of held.splice(0, 50)) r.writeHead(429).end();
    }
    setTimeout(() => {
      const i = held.indexOf(response);
      if (i >= 0) held.splice(i, 1);
      if (!response.writableEnded) response.end('ok');
    }, 300);
  });
  http.listen(0, '127.0.0.1');
  await new Promise((resolve) => http.once('listening', resolve));
  t0 = performance.now();
  const origin = `http://127.0.0.1:${http.address().port}`;
  const reports = await runWorkers(8, {
    origin,
    durationMs: 8000,
    lanes: 8,
    maxConcurrency: 64,
    initialConcurrency: 64,
    ...(redis ? { redis: redis.url } : {}),
  });
  http.closeAllConnections();
  http.close();
  let epoch = null;
  if (redis) {
    const fleet = redisFleet({ url: redis.url, log: () => undefined });
    await fleet.ready;
    const [scope] = await readFleetStatus(fleet.link);
    epoch = scope?.epoch ?? null;
    await fleet.close();
  }
  return {
    mode: redis ? 'Redis' : 'alone',
    most,
    refused: sum(reports, 'refused'),
    cuts: redis ? epoch : sum(reports, 'cuts'),
  };
}

/** 100 workers SIGKILLed (10 at a time) while each holds 2 leases (lease 1 s): when are the slots back? */
async function kill(redis) {
  const server = await scriptedServer(() => ({ status: 200, holdMs: 600_000 }));
  const keys = scopeKeys('rw', `host:${new URL(server.url).host}`);
  const client = createRedis({ url: redis.url });
  await client.connect();
  // A lease counts until its expiry passes on Redis's clock (the next admission drops it).
  const leasesOf = async (pid) => {
    const [seconds, micros] = await client.time();
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const live = await client.zRangeByScore(keys.leases, now, '+inf');
    return live.filter((id) => id.includes(`-${pid}-`)).length;
  };
  const backMs = [];
  let leaked = 0;
  for (let batch = 0; batch < 10; batch++) {
    const workers = Array.from({ length: 10 }, () =>
      startWorker({
        origin: server.url,
        durationMs: 60_000,
        lanes: 2,
        maxConcurrency: 64,
        initialConcurrency: 64,
        redis: redis.url,
        leaseMs: 1000,
        hold: true,
      }),
    );
    for (const w of workers) {
      const since = performance.now();
      while ((await leasesOf(w.child.pid)) < 2) {
        if (w.child.exitCode !== null || performance.now() - since > 20_000)
          throw new Error(`kill: a worker never held its 2 leases: ${(await w.done).stderr}`);
        await sleep(20);
      }
    }
    const killedAt = performance.now();
    for (const w of workers) w.child.kill('SIGKILL');
    await Promise.all(
      workers.map(async (w) => {
        while ((await leasesOf(w.child.pid)) > 0) {
          if (performance.now() - killedAt > 1000 + 1000) {
            leaked++;
            return;
          }
          await sleep(10);
        }
        backMs.push(performance.now() - killedAt);
      }),
    );
    await Promise.all(workers.map((w) => w.done));
  }
  await client.close();
  await server.close();
  backMs.sort((a, b) => a - b);
  return { killed: 100, back: backMs.length, leaked, p50: backMs[49], max: backMs.at(-1) };
}

/** 8 workers at 30 req/s; Redis frozen (SIGSTOP) from 25 s to 55 s. */
async function outage(redis) {
  const server = await serveMock(['--model', 'fixed-window', '--rate', '30', '--latency', '100']);
  const workers = Array.from({ length: 8 }, () =>
    startWorker({ origin: server.url, durationMs: 75_000, lanes: 8, redis: redis.url }),
  );
  const rate = (a, b, s) => (b.arrivals - a.arrivals) / s;
  await sleep(10_000);
  const s10 = await server.stats();
  await sleep(15_000);
  const s25 = await server.stats();
  redis.freeze();
  const frozenWall = Date.now();
  await sleep(2000);
  const s27 = await server.stats();
  await sleep(28_000);
  const s55 = await server.stats();
  redis.thaw();
  const thawedWall = Date.now();
  await sleep(2000);
  const s57 = await server.stats();
  await sleep(16_000);
  const s73 = await server.stats();
  const reports = await Promise.all(workers.map((w) => w.done));
  await server.stop();
  const rejoinMs = reports.map((r) => {
    const back = (r.modes ?? []).find((m) => m.wall >= thawedWall && /back/.test(m.line));
    return back ? back.wall - thawedWall : null;
  });
  const leftMs = reports.map((r) => {
    const left = (r.modes ?? []).find((m) => m.wall >= frozenWall && /unreachable/.test(m.line));
    return left ? left.wall - frozenWall : null;
  });
  return {
    before: rate(s10, s25, 15),
    during: rate(s27, s55, 28),
    after: rate(s57, s73, 16),
    failed: sum(reports, 'failed'),
    leftMaxMs: Math.max(...leftMs.map((x) => x ?? Infinity)),
    rejoinMaxMs: Math.max(...rejoinMs.map((x) => x ?? Infinity)),
    // Script calls Redis answered after the call timeout: their callers were released by the
    // timeout, which fires late by as much as the worker's event loop is late.
    callsPastTimeout: sum(reports, 'callsOver100'),
    callMaxMs: Math.max(...reports.map((r) => r.callMax ?? 0)),
    loopMaxMs: Math.max(...reports.map((r) => r.loopMax ?? 0)),
  };
}

// Calls over 10 ms are kept in Redis's SLOWLOG (read after each throughput run).
const redis = await startRedisServer({
  args: ['--slowlog-log-slower-than', '10000', '--slowlog-max-len', '1000'],
});
const fresh = async () => {
  await redis.stop();
  await redis.start();
};
try {
  if (wants('throughput')) {
    const rows = [];
    for (const n of sizes) {
      for (let run = 0; run < runs; run++) {
        if (!sharedOnly) rows.push(await throughput(n, undefined));
        if (aloneOnly) continue;
        await fresh();
        rows.push(await throughput(n, redis));
      }
    }
    printThroughput(rows);
    if (runs > 1) printRuns(rows);
  }
  if (wants('skew')) {
    await fresh();
    printThroughput([await throughput(8, redis, true)]);
  }
  if (wants('cap')) {
    await fresh();
    for (const r of [await cap(undefined), await cap(redis)])
      console.log(
        `cap 8: ${r.mode}: the server saw at most ${r.maxInFlight} at once, ${r.refused} refused (503), ${r.ok} ok`,
      );
  }
  if (wants('pause')) {
    await fresh();
    const r = await pause(redis);
    console.log(
      `Retry-After 10: arrivals in the 9.8 s after the 429: ${JSON.stringify(r.during)}; next arrival ${fixed(r.silenceMs / 1000, 3)} s after it; first after 1 s: ${fixed(r.resumedMs / 1000, 3)} s after it; ${r.switches} mode switches`,
    );
  }
  if (wants('burst')) {
    await fresh();
    for (const r of [await burst(undefined), await burst(redis)])
      console.log(
        `burst: ${r.mode}: at most ${r.most} held at once, ${r.refused} refusals, ${r.cuts} cut(s)${r.mode === 'Redis' ? ' (fleet epoch)' : ' (sum over the workers)'}`,
      );
  }
  if (wants('kill')) {
    await fresh();
    const r = await kill(redis);
    console.log(
      `SIGKILL: ${r.killed} workers killed holding 2 leases each (lease 1 s): ${r.back} gave them back (p50 ${fixed(r.p50, 0)} ms, max ${fixed(r.max, 0)} ms), ${r.leaked} still held after 2 s`,
    );
  }
  if (wants('outage')) {
    await fresh();
    const r = await outage(redis);
    console.log(
      `outage: arrivals/s before ${fixed(r.before)}, Redis frozen ${fixed(r.during)}, after ${fixed(r.after)}; failed ${r.failed}; all local within ${r.leftMaxMs} ms; all rejoined within ${r.rejoinMaxMs} ms of Redis answering; ${r.callsPastTimeout} script calls answered after the 100 ms call timeout (the latest after ${fixed(r.callMaxMs, 0)} ms; each caller released by the timeout, whose timer the event loop ran late by up to ${fixed(r.loopMaxMs, 0)} ms)`,
    );
  }
  if (wants('cluster')) {
    const r = await cluster(clusterLanes, clusterWorkers, loopMonitor);
    console.log(
      `cluster (${clusterWorkers} workers, ${clusterLanes} lanes each): ${r.requests} requests over 1000 scopes, ${r.failed} failed, ${r.crossslot} CROSSSLOT, ${r.leftShared} switches to local; script round trip p50 ${fixed(r.callP50)} ms, p99 ${fixed(r.callP99)} ms, admission (acquire) p50 ${fixed(r.acquireP50)} ms, p99 ${fixed(r.acquireP99)} ms, whole admission (fetch to headers sent, one lane) p50 ${fixed(r.admissionP50)} ms, p99 ${fixed(r.admissionP99)} ms (worst worker; calls begun during the run, ${r.closeCalls} more in the close); ${fixed(r.roundTrips)} round trips / request (${r.byScript}); ${pct(r.admissionShare)} of requests paid an admission round trip, ${fixed(r.subscribes)} channel subscriptions per request (p99 ${fixed(r.subscribeP99)} ms, worst worker); workers' CPU ${fixed(r.cpuMsPerRequest)} ms / request`,
    );
    console.log(
      `  where the tail is: worker event-loop delay p99 ${fixed(r.loopP99)} ms, max ${fixed(r.loopMax)} ms (worst worker); per worker call p50/p99/acquire p99/loop p99 ms: ${r.perWorker.join(', ')}; PING from an idle process p50 ${fixed(r.ping.p50)} ms, p99 ${fixed(r.ping.p99)} ms, max ${fixed(r.ping.max)} ms; scripts inside Redis ${fixed(r.inside, 0)} µs per call`,
    );
  }
} finally {
  await redis.close();
}
