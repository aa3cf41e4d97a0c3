// What the client benches share: a loopback server in a child process answering every request
// at once (200, 2-byte body), an undici dispatcher answering the same in-process without a
// socket, and the driver that loops requests for a fixed time.
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const SERVER_FLAG = '--ok-server';
const self = fileURLToPath(import.meta.url);

if (process.argv[1] === self && process.argv[2] === SERVER_FLAG) serveOk();

/** Reads `--connections` (default 32), `--seconds` (default 3) and `--rounds` as numbers. */
export function driveArgs(defaultRounds) {
  const { values } = parseArgs({
    options: {
      connections: { type: 'string', default: '32' },
      seconds: { type: 'string', default: '3' },
      rounds: { type: 'string', default: String(defaultRounds) },
    },
  });
  return {
    connections: Number(values.connections),
    seconds: Number(values.seconds),
    rounds: Number(values.rounds),
  };
}

/**
 * Starts the immediate-200 server in a child process (so its CPU is not the bench's);
 * resolves with its URL and a `stop()` that ends the child.
 */
export async function startOkServer() {
  const child = fork(self, [SERVER_FLAG], { stdio: 'inherit' });
  const port = await new Promise((resolve) => child.once('message', resolve));
  return { url: `http://127.0.0.1:${port}/`, stop: () => child.disconnect() };
}

function serveOk() {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-length': '2' });
    res.end('ok');
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send?.(server.address().port));
  process.on('disconnect', () => process.exit(0));
}

/** An undici dispatcher that answers every request at once with `200 ok`, no socket involved. */
export function instantDispatcher() {
  const body = Buffer.from('ok');
  const controller = {
    aborted: false,
    paused: false,
    reason: null,
    abort() {},
    pause() {},
    resume() {},
  };
  return {
    dispatch(_opts, handler) {
      queueMicrotask(() => {
        handler.onRequestStart?.(controller, {});
        handler.onResponseStart?.(controller, 200, { 'content-length': '2' }, 'OK');
        handler.onResponseData?.(controller, body);
        handler.onResponseEnd?.(controller, {});
      });
      return true;
    },
    close: async () => {},
    destroy: async () => {},
  };
}

/**
 * Runs `connections` loops of `once` for `seconds`; returns the completed requests/s and the
 * process CPU time per request, µs.
 */
export async function drive(once, connections, seconds) {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        await once();
        done++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return {
    rate: done / ((performance.now() - started) / 1000),
    cpuUs: (used.user + used.system) / done,
  };
}

/** The middle value (the upper middle of an even count). */
export function median(xs) {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
}
