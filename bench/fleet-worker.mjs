// One worker of the fleet benchmark (bench/fleet.mjs): a real process that fetches from one
// origin for a while with createClient — sharing its scopes through Redis when given one —
// and prints what it saw as one JSON line. Options come as one JSON argument:
//   { origin, durationMs, lanes, maxConcurrency?, initialConcurrency?, redis?, cluster?,
//     leaseMs?, rateLeaseMinRequests?, horizonMs?, skewMs?, scopes?, hold?, timeline?, go?, sends?,
//     loopMonitor? }
// go: once set up (modules loaded, Redis connected), print {"ready":true} and wait for a line on
// stdin before the run's durationMs starts (so a cold start on a loaded machine is not measured).
// scopes > 1 spreads the requests over that many scopes (for the cluster run); hold keeps the
// process alive after the run (for the SIGKILL loop, which kills it mid-request); timeline adds
// a per-second record of its own controller (bench/fleet-timeline.mjs prints it); sends adds the
// wall time (ms, this machine's clock) each request's headers went out, for the fleet's spacing.

import { subscribe } from 'node:diagnostics_channel';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createCluster, createClient as createRedis } from '@redis/client';
import { createClient, systemClock } from '../dist/index.js';
import { nodeRedisLink, redisFleet } from '../dist/redis/index.js';
import * as acquire from '../dist/redis/lua/acquire.js';
import * as heartbeat from '../dist/redis/lua/heartbeat.js';
import * as learn from '../dist/redis/lua/learn.js';
import * as release from '../dist/redis/lua/release.js';
import * as share from '../dist/redis/lua/share.js';

const options = JSON.parse(process.argv[2] ?? '{}');
const skew = options.skewMs ?? 0;
/**
 * The worker's clock: its wall time off by skewMs, its monotonic time from its own origin
 * (10 s + skewMs after the process started, so workers disagree on that too).
 */
const clock = {
  now: () => systemClock.now() + 10_000 + skew,
  wallNow: () => systemClock.wallNow() + skew,
  setTimer: (ms, callback) => systemClock.setTimer(ms, callback),
  sleep: (ms, signal) => systemClock.sleep(ms, signal),
};

/**
 * Round-trip times of the fleet's script calls (EVALSHA/EVAL) begun during the run, ms (and of
 * the acquires that asked for leases among them: a request's admission); those of the close (every scope's last ends
 * and learning, at once) are counted apart. Calls by script or command.
 */
const calls = [];
const acquires = [];
/** Round-trip times of the scopes' channel subscriptions during the run, ms. */
const subscribes = [];
let closing = false;
let closeCalls = 0;
const byScript = {};
const scriptNames = new Map(
  Object.entries({ ...acquire, ...heartbeat, ...learn, ...release, ...share })
    .filter(([, v]) => typeof v?.sha === 'string')
    .map(([name, v]) => [v.sha, name.replace(/Script$/, '')]),
);
const modes = [];
let fleet;
let redis;
if (options.redis) {
  const socket = { connectTimeout: 1000, reconnectStrategy: (n) => Math.min(50 * 2 ** n, 500) };
  redis = options.cluster
    ? createCluster({
        rootNodes: [{ url: options.redis }],
        defaults: { disableOfflineQueue: true, socket },
      })
    : createRedis({ url: options.redis, disableOfflineQueue: true, socket });
  redis.on('error', () => undefined);
  await redis.connect();
  const link = nodeRedisLink(redis);
  const timed = {
    ...link,
    // SSUBSCRIBE of a scope's channel: a scope's first admission in this worker waits for it.
    subscribe: async (channel, listener) => {
      const started = performance.now();
      try {
        return await link.subscribe(channel, listener);
      } finally {
        if (!closing) subscribes.push(performance.now() - started);
      }
    },
    command: async (key, args) => {
      const started = performance.now();
      const duringRun = !closing;
      try {
        return await link.command(key, args);
      } finally {
        if (args[0] === 'EVALSHA' || args[0] === 'EVAL') {
          const name = scriptNames.get(args[0] === 'EVALSHA' ? args[1] : '') ?? 'eval';
          if (!duringRun) closeCalls++;
          else calls.push(performance.now() - started);
          // An admission: an acquire asking for leases (ARGV[13], count; 0 only ends requests).
          if (duringRun && name === 'acquire' && args[3 + Number(args[2]) + 12] !== '0')
            acquires.push(performance.now() - started);
          byScript[name] = (byScript[name] ?? 0) + 1;
        } else byScript[args[0]] = (byScript[args[0]] ?? 0) + 1;
      }
    },
  };
  fleet = redisFleet({
    link: timed,
    clock,
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    ...(options.rateLeaseMinRequests ? { rateLeaseMinRequests: options.rateLeaseMinRequests } : {}),
    ...(options.horizonMs !== undefined ? { horizonMs: options.horizonMs } : {}),
    log: (line) => {
      modes.push({ wall: Date.now(), line });
      process.stderr.write(`${line}\n`);
    },
  });
  await fleet.ready;
}

/** Wall ms each request's headers were sent (undici's channel, as they leave), when asked. */
const sends = [];
/**
 * With one lane, each request's whole admission: from `fetch` called to its headers sent (the
 * local controller, a channel subscription, the acquire, a booked send time), ms.
 */
const admissions = [];
let fetchedAt;
if (options.sends || options.lanes === 1)
  subscribe('undici:client:sendHeaders', () => {
    const now = performance.now();
    if (options.sends) sends.push(Math.round((performance.timeOrigin + now) * 10) / 10);
    if (fetchedAt !== undefined && options.lanes === 1 && !closing)
      admissions.push(now - fetchedAt);
    fetchedAt = undefined;
  });

const scopes = options.scopes ?? 1;
/**
 * Times this worker's controller lowered a scope's concurrency limit or rate, 100 ms apart at
 * least (one refusal can move both): its own cuts, or the fleet's seen.
 */
let cuts = 0;
let lastCutAt = -Infinity;
const number = (text) => (text === 'unpaced' ? Infinity : Number.parseFloat(text));
const events = (event) => {
  if (event.type !== 'limit' && event.type !== 'rate') return;
  const moved = /^(\S+) -> (\S+)/.exec(event.reason);
  if (!moved || !(number(moved[2]) < number(moved[1]))) return;
  if (Date.now() - lastCutAt >= 100) cuts++;
  lastCutAt = Date.now();
};
const client = createClient({
  clock,
  events,
  ...(fleet ? { fleet } : {}),
  maxConcurrency: options.maxConcurrency ?? 32,
  ...(options.initialConcurrency ? { initialConcurrency: options.initialConcurrency } : {}),
  ...(scopes > 1 ? { scope: ({ url }) => `host:${url.pathname.split('/')[1]}` } : {}),
  retry: { maxAttempts: 1 },
});

/**
 * How late this process's event loop ran its callbacks (ms): the floor under every call's time.
 * It wakes the loop every ms; `loopMonitor: false` leaves it off (its figures are then null).
 */
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
const monitored = options.loopMonitor !== false;
if (monitored) loopDelay.enable();
const tally = { ok: 0, refused: 0, other: 0, failed: 0, errors: [] };
if (options.go) {
  process.stdout.write('{"ready":true}\n');
  await new Promise((resolve) => process.stdin.once('data', resolve));
  process.stdin.destroy();
}
const end = Date.now() + options.durationMs;
const cpuAtStart = process.cpuUsage();
let n = 0;
let busy = 0;
const seconds = options.timeline ? watch() : undefined;
async function lane() {
  while (Date.now() < end) {
    const i = n++;
    const path = scopes > 1 ? `/s${i % scopes}/${i}` : `/${process.pid}/${i}`;
    busy++;
    fetchedAt = performance.now();
    try {
      const response = await client.fetch(`${options.origin}${path}`);
      await response.arrayBuffer();
      if (response.status === 200) tally.ok++;
      else if (response.status === 429 || response.status === 503) tally.refused++;
      else tally.other++;
      seconds?.answered(response.status);
    } catch (error) {
      tally.failed++;
      if (tally.errors.length < 5) tally.errors.push(String(error?.message ?? error));
    } finally {
      busy--;
    }
  }
}

/**
 * Every 10 ms, the (first) scope's local controller: per second since the start, answers by
 * status, its rate (min-max; in shared mode the share or the fleet's), alone its ceiling and
 * margin, limit, ms paused, and
 * where the busy lanes were (in flight, queued locally, waiting on the fleet: the rest).
 */
function watch() {
  const started = Date.now();
  const rows = [];
  let row;
  const rowNow = () => {
    const t = Math.floor((Date.now() - started) / 1000);
    if (row?.t !== t) {
      row = {
        t,
        ok: 0,
        refused: 0,
        rateMin: null,
        rateMax: null,
        limit: 0,
        pausedMs: 0,
        inflight: 0,
        queued: 0,
        fleetWait: 0,
        looks: 0,
      };
      rows.push(row);
    }
    return row;
  };
  const timer = setInterval(() => {
    const r = rowNow();
    const [controller] = client.registry.controllers();
    if (!controller) return;
    const rate = controller.rate === Infinity ? null : controller.rate;
    r.rateMin = r.rateMin === null ? rate : Math.min(r.rateMin, rate ?? Infinity);
    r.rateMax = r.rateMax === null ? rate : Math.max(r.rateMax, rate ?? Infinity);
    r.limit = controller.limit;
    // Alone, the controller's own rate algorithm (with Redis, the fleet's is in Redis: fleet-timeline reads it).
    const learned = fleet ? undefined : controller.snapshot().rate;
    r.ceiling = learned?.ceiling;
    r.margin = learned?.margin;
    if (controller.pauseLeftMs > 0) r.pausedMs += 10;
    r.inflight = Math.max(r.inflight, controller.inflight);
    r.queued = Math.max(r.queued, controller.queued);
    r.fleetWait += busy - controller.inflight - controller.queued;
    r.looks++;
  }, 10);
  return {
    answered: (status) => {
      const r = rowNow();
      if (status === 200) r.ok++;
      else r.refused++;
    },
    stop: () => {
      clearInterval(timer);
      return rows.map((r) => ({ ...r, fleetWait: r.looks ? r.fleetWait / r.looks : 0 }));
    },
  };
}
await Promise.all(Array.from({ length: options.lanes }, lane));
const timeline = seconds?.stop();
// This process's CPU over the run (user + system, ms): with the requests, its own work per request.
const cpu = process.cpuUsage(cpuAtStart);
if (options.hold) await new Promise(() => undefined);
closing = true;
loopDelay.disable(); // the run's event loop, not the close's
await client.close();
calls.sort((a, b) => a - b);
acquires.sort((a, b) => a - b);
subscribes.sort((a, b) => a - b);
admissions.sort((a, b) => a - b);
const quantile = (times, q) =>
  times.length ? times[Math.min(times.length - 1, Math.floor(q * times.length))] : null;
const at = (q) => quantile(calls, q);
process.stdout.write(
  `${JSON.stringify({
    pid: process.pid,
    ...tally,
    cuts,
    requests: tally.ok + tally.refused + tally.other + tally.failed,
    roundTrips: fleet?.roundTrips ?? 0,
    calls: calls.length,
    byScript,
    callP50: at(0.5),
    callP99: at(0.99),
    callMax: calls.at(-1) ?? null,
    acquireP50: quantile(acquires, 0.5),
    acquireP99: quantile(acquires, 0.99),
    admissionCalls: acquires.length,
    admissionP50: quantile(admissions, 0.5),
    admissionP99: quantile(admissions, 0.99),
    subscribes: subscribes.length,
    subscribeP50: quantile(subscribes, 0.5),
    subscribeP99: quantile(subscribes, 0.99),
    closeCalls,
    cpuMs: (cpu.user + cpu.system) / 1000,
    // Script calls that took longer than the call timeout (100 ms) and than 3 of them (300 ms).
    callsOver100: calls.filter((ms) => ms > 100).length,
    callsOver300: calls.filter((ms) => ms > 300).length,
    loopP50: monitored ? loopDelay.percentile(50) / 1e6 : null,
    loopP99: monitored ? loopDelay.percentile(99) / 1e6 : null,
    loopMax: monitored ? loopDelay.max / 1e6 : null,
    modes,
    ...(timeline ? { timeline } : {}),
    ...(options.sends ? { sends } : {}),
  })}\n`,
);
await fleet?.close();
await redis?.destroy();
