import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A throwaway `redis-server` on loopback, for tests and benchmarks. */
export interface RedisProcess {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGTERM) and waits for it to exit; `start` brings it back on the same port. */
  stop(): Promise<void>;
  /** Starts it again on the same port (after `stop`), empty. */
  start(): Promise<void>;
  /** Stops the server for good and removes its directory. */
  close(): Promise<void>;
  /** Freezes the process (SIGSTOP): connections stay open, nothing is answered. */
  freeze(): void;
  /** Lets a frozen process run again (SIGCONT). */
  thaw(): void;
}

/** Options of {@link startRedisServer}. */
export interface RedisProcessOptions {
  /** Extra `redis-server` arguments, e.g. `['--cluster-enabled', 'yes']`. */
  args?: readonly string[];
  /** The `redis-server` executable. @default 'redis-server' */
  command?: string;
}

/**
 * Starts `redis-server` on a free loopback port with persistence off
 * (`--save '' --appendonly no`) in a temporary directory, and resolves once
 * it accepts connections. `close()` stops it and removes the directory. A
 * watchdog stops the server if this process ends without closing it (a
 * failed or killed test run leaves no `redis-server` behind).
 */
export async function startRedisServer(options: RedisProcessOptions = {}): Promise<RedisProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'ratewise-redis-'));
  const port = await freePortPair();
  let child: ChildProcess | undefined;
  const launchHere = () => launch(options.command ?? 'redis-server', port, dir, options.args ?? []);
  const start = async (): Promise<void> => {
    // The port may take a moment to come free (a server shut down from outside is still exiting).
    for (let tries = 1; ; tries++) {
      try {
        child = await launchHere();
        return;
      } catch (error) {
        if (tries >= 40) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };
  child = await launchHere();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    stop: async () => {
      const running = child;
      child = undefined;
      if (running) await ended(running);
    },
    close: async () => {
      const running = child;
      child = undefined;
      if (running) await ended(running);
      await rm(dir, { recursive: true, force: true });
    },
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
  };
}

/** Three masters of a Redis Cluster on loopback (no replicas), ready for commands. */
export interface RedisClusterProcess {
  /** The masters, each usable as a root node. */
  readonly nodes: readonly RedisProcess[];
  /** Stops every node for good. */
  close(): Promise<void>;
}

/**
 * Starts three `redis-server --cluster-enabled yes` masters and joins them
 * with `redis-cli --cluster create … --cluster-yes`; resolves once the
 * cluster reports `cluster_state:ok` on every node.
 */
export async function startRedisCluster(): Promise<RedisClusterProcess> {
  const args = ['--cluster-enabled', 'yes', '--cluster-node-timeout', '2000'];
  const started = await Promise.allSettled([0, 1, 2].map(() => startRedisServer({ args })));
  const nodes = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const close = async () => {
    await Promise.all(nodes.map((node) => node.close()));
  };
  try {
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason; // the nodes that did start are stopped below
    const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-yes']);
    for (const node of nodes) await untilClusterOk(node.port);
    return { nodes, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function untilClusterOk(port: number): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    const { stdout } = await run('redis-cli', ['-p', String(port), 'cluster', 'info']);
    if (stdout.includes('cluster_state:ok')) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`redis cluster node ${port}: cluster_state never became ok`);
}

async function launch(
  command: string,
  port: number,
  dir: string,
  extra: readonly string[],
): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const child = spawn(command, [...args, '--dir', dir, ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.once('error', (error) =>
      reject(new Error(`cannot start ${command} (apt-get install redis-server): ${error.message}`)),
    );
    child.once('exit', (code) =>
      reject(new Error(`${command} exited (${code}): ${output.trim()}`)),
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve();
    });
  });
  child.removeAllListeners('exit');
  child.stdout?.resume();
  child.stderr?.resume();
  watchdogs.set(child, watchdog(child.pid as number));
  return child;
}

/** Each running server's watchdog, stopped with it. */
const watchdogs = new WeakMap<ChildProcess, ChildProcess>();

/**
 * A shell that stops `pid` once its stdin closes — when this process ends in
 * any way, even SIGKILL — so a test run that fails or is killed leaves no
 * `redis-server` behind. It does not keep this process alive.
 */
function watchdog(pid: number): ChildProcess {
  const script = 'read _; kill -CONT "$1"; kill -TERM "$1"';
  const shell = spawn('sh', ['-c', script, 'watchdog', String(pid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  shell.on('error', () => undefined); // without sh the server is stopped only by close()
  shell.unref();
  (shell.stdin as Socket | null)?.unref();
  return shell;
}

function ended(child: ChildProcess): Promise<void> {
  watchdogs.get(child)?.kill('SIGKILL');
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGCONT');
    child.kill('SIGTERM');
  });
}

/** A free port whose cluster bus port (port + 10000) is free too. */
async function freePortPair(): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const port = await freePort(0);
    if (port < 55_000 && (await freePort(port + 10_000).catch(() => 0)) !== 0) return port;
  }
  throw new Error('no free port pair for redis-server');
}

function freePort(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
