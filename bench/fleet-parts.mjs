// Pieces of the fleet benchmark (bench/fleet.mjs): processes to start and servers to script.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';

const CLI = new URL('../dist/cli/main.js', import.meta.url).pathname;
const WORKER = new URL('./fleet-worker.mjs', import.meta.url).pathname;

/** `ratewise serve-mock …args` on a free port; resolves with its URL and a stop function. */
export async function serveMock(args) {
  const child = spawn(process.execPath, [CLI, 'serve-mock', '--json', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = await once(child.stdout, 'data');
  const { url } = JSON.parse(String(line).split('\n')[0]);
  return {
    url,
    stats: async () => (await fetch(`${url}/__stats`)).json(),
    stop: async () => {
      child.kill('SIGINT');
      await once(child, 'exit');
    },
  };
}

/**
 * Starts one worker process (bench/fleet-worker.mjs); `done` resolves with its report. With
 * `options.go`, `ready` resolves once it is set up and `go()` starts its run.
 */
export function startWorker(options) {
  const child = spawn(process.execPath, [WORKER, JSON.stringify(options)], {
    stdio: [options.go ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let setUp;
  const ready = new Promise((resolve) => (setUp = resolve));
  child.stdout.on('data', (chunk) => {
    out += chunk;
    if (out.startsWith('{"ready":true}')) setUp();
  });
  child.stderr.on('data', (chunk) => (err += chunk));
  const done = new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      const last = out.trim().split('\n').at(-1);
      try {
        resolve({ ...JSON.parse(last), code, signal, stderr: err });
      } catch {
        resolve({ code, signal, stderr: err, failedToReport: true });
      }
    }),
  );
  done.then(setUp); // a worker that died before it was ready does not hold the others
  return { child, done, ready, go: () => child.stdin?.end('go\n') };
}

/** Runs `n` workers with the same options to the end. */
export function runWorkers(n, options) {
  return Promise.all(Array.from({ length: n }, () => startWorker(options).done));
}

/**
 * A scripted loopback server: `answer(request, arrivalMs)` returns `{ status, headers, holdMs }`;
 * every arrival is recorded (ms since start, and its path in `paths`).
 */
export async function scriptedServer(answer) {
  const started = performance.now();
  const arrivals = [];
  const paths = [];
  let inflight = 0;
  let maxInflight = 0;
  const server = createServer((request, response) => {
    const at = performance.now() - started;
    arrivals.push(at);
    paths.push(request.url);
    maxInflight = Math.max(maxInflight, ++inflight);
    const reply = answer(request, at);
    setTimeout(() => {
      inflight--;
      if (response.destroyed) return;
      response.writeHead(reply.status, reply.headers ?? {}).end(reply.status === 200 ? 'ok' : '');
    }, reply.holdMs ?? 0).unref(); // a request held past the end does not keep the bench alive
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    arrivals,
    paths,
    started,
    get maxInflight() {
      return maxInflight;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Resolves after `ms`. */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sums a field over worker reports. */
export const sum = (reports, field) => reports.reduce((total, r) => total + (r[field] ?? 0), 0);

/**
 * The fleet's spacing from every worker's send times (wall ms, merged), over [from, to): the
 * most sends in any 1 s (a fixed-window server refuses the 31st of a window), the share of
 * consecutive sends closer than half the mean interval (bunched), and the gaps' p5 and p95 (ms).
 */
export function spacing(reports, from, to) {
  const times = reports
    .flatMap((r) => r.sends ?? [])
    .filter((t) => t >= from && t < to)
    .sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[j] < times[i] - 1000 + 1e-9) j++;
    most = Math.max(most, i - j + 1);
  }
  const mean = (times.at(-1) - times[0]) / Math.max(1, times.length - 1);
  const gaps = times.slice(1).map((t, i) => t - times[i]);
  const bunched = gaps.filter((gap) => gap < mean / 2).length;
  gaps.sort((a, b) => a - b);
  const at = (q) => gaps[Math.min(gaps.length - 1, Math.floor(q * gaps.length))];
  return { most, bunched: bunched / Math.max(1, gaps.length), gapP5: at(0.05), gapP95: at(0.95) };
}
