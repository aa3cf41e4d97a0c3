import { afterAll, beforeAll } from 'vitest';
import { controlSetup } from '../../src/controller/defaults.js';
import type { ScopeRegistry } from '../../src/controller/registry.js';
import type { RedisFleetOptions } from '../../src/redis/fleet-options.js';
import { RedisFleet } from '../../src/redis/redis-fleet.js';
import { type RedisProcess, startRedisServer } from '../../src/redis/redis-process.js';
import type { Signal } from '../../src/signal.js';

export const OK: Signal = { kind: 'ok', reason: '200', status: 200 };
export const REFUSED: Signal = { kind: 'throttled', reason: '429', status: 429 };

/** One redis-server for the test file, with fleets and registries closed after it. */
export function useRedis(): {
  server: () => RedisProcess;
  fleet: (options?: Omit<RedisFleetOptions, 'url'>) => Promise<RedisFleet>;
  registry: (fleet: RedisFleet, control?: Parameters<typeof controlSetup>[0]) => ScopeRegistry;
  lines: string[];
} {
  let server: RedisProcess | undefined;
  const fleets: RedisFleet[] = [];
  const registries: ScopeRegistry[] = [];
  const lines: string[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const registry of registries) await registry.close();
    for (const fleet of fleets) await fleet.close();
    await server?.close();
  });
  let count = 0;
  return {
    server: () => server as RedisProcess,
    fleet: async (options = {}) => {
      const fleet = new RedisFleet({
        url: (server as RedisProcess).url,
        workerId: `w${++count}`,
        log: (line) => lines.push(line),
        // A loaded test machine can hold a reply past the 100 ms default; tests of
        // sharing allow a second, tests of Redis going away set their own.
        callTimeoutMs: 1000,
        ...options,
      });
      fleets.push(fleet);
      await fleet.ready;
      return fleet;
    },
    registry: (fleet, control = {}) => {
      const registry = fleet.registry({ setup: controlSetup(control) });
      registries.push(registry);
      return registry;
    },
    lines,
  };
}

/** Reads a scope's state hash. */
export async function stateOf(fleet: RedisFleet, key: string): Promise<Record<string, string>> {
  const flat = (await fleet.link.command(key, ['HGETALL', key])) as unknown;
  if (!Array.isArray(flat)) return flat as Record<string, string>;
  const out: Record<string, string> = {};
  for (let i = 0; i < flat.length; i += 2) out[String(flat[i])] = String(flat[i + 1]);
  return out;
}

/** Resolves once `done()` holds (asked every 10 ms), or after `ms` (the caller's assertions then fail). */
export async function until(done: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const since = performance.now();
  while (!(await done()) && performance.now() - since < ms) await pause(10);
}

/** Resolves after `ms` of real time (Redis keeps real time, so fleet tests wait on it). */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
