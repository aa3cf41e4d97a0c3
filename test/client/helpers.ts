import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Clock, sleepOn } from '../../src/clock.js';

/** A loopback HTTP server on port 0 for one test. */
export interface TestServer {
  url: string;
  /** Requests seen, in arrival order, with their real arrival time. */
  seen: { method: string; path: string; at: number; headers: IncomingMessage['headers'] }[];
  close(): Promise<void>;
}

/** Starts `handler` on 127.0.0.1, port 0; `close()` also ends keep-alive connections. */
export async function startServer(
  handler: (req: IncomingMessage, res: ServerResponse, index: number) => void,
): Promise<TestServer> {
  const seen: TestServer['seen'] = [];
  const server = createServer((req, res) => {
    seen.push({
      method: req.method ?? '',
      path: req.url ?? '',
      at: performance.now(),
      headers: req.headers,
    });
    handler(req, res, seen.length - 1);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A real clock running `factor` times faster, so second-long waits take milliseconds. */
export function fastClock(factor: number): Clock {
  const clock: Clock = {
    now: () => performance.now() * factor,
    wallNow: () => Date.now(),
    setTimer(ms, callback) {
      // Like systemClock: never fire before `now()` reaches the due time.
      const due = clock.now() + Math.max(0, ms);
      let handle: ReturnType<typeof setTimeout>;
      const arm = (delay: number): void => {
        handle = setTimeout(() => {
          const left = due - clock.now();
          if (left > 0) arm(left);
          else callback();
        }, delay / factor);
      };
      arm(Math.max(0, ms));
      return () => clearTimeout(handle);
    },
    sleep: (ms, signal) => sleepOn(clock, ms, signal),
  };
  return clock;
}

/** Resolves once `condition()` holds, checking every few ms; rejects after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Settles as `promise` does if it does within `ms` of real time, else with `'still pending'`. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | 'still pending'> {
  return Promise.race([
    promise,
    new Promise<'still pending'>((resolve) => setTimeout(() => resolve('still pending'), ms)),
  ]);
}
