import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlSetup } from '../../src/controller/defaults.js';
import { RedisFleet } from '../../src/redis/redis-fleet.js';
import { type RedisClusterProcess, startRedisCluster } from '../../src/redis/redis-process.js';
import { OK } from './fleet-helpers.js';

const run = promisify(execFile);
let cluster: RedisClusterProcess;
beforeAll(async () => {
  cluster = await startRedisCluster();
}, 30_000);
afterAll(async () => {
  await cluster?.close();
});

describe('a fleet on a 3-master Redis Cluster', () => {
  it('three workers admit across 120 scopes spread over every master, through a SCRIPT FLUSH, in shared mode', async () => {
    const lines: string[] = [];
    const url = `redis://127.0.0.1:${cluster.nodes[0]?.port}`;
    // A loaded test machine can hold a reply past the 100 ms default; this test is about
    // slots and scripts (the 100 ms figure is the benchmark's), so it allows a second.
    const fleets = [1, 2, 3].map(
      (i) =>
        new RedisFleet({
          url,
          cluster: true,
          workerId: `c${i}`,
          callTimeoutMs: 1000,
          log: (line) => lines.push(line),
        }),
    );
    await Promise.all(fleets.map((fleet) => fleet.ready));
    const registries = fleets.map((fleet) => fleet.registry({ setup: controlSetup() }));
    const scopes = Array.from({ length: 120 }, (_, i) => `host:s${i}.example`);
    // Each worker goes through every scope, 4 requests at a time (a crawler's pace, not a burst).
    const round = () =>
      Promise.all(
        registries.flatMap((registry) =>
          [0, 1, 2, 3].map(async (lane) => {
            for (let i = lane; i < scopes.length; i += 4) {
              (await registry.admit(scopes[i] as string)).report(OK);
            }
          }),
        ),
      );
    try {
      await round();
      await Promise.all(
        cluster.nodes.map((node) => run('redis-cli', ['-p', String(node.port), 'SCRIPT', 'FLUSH'])),
      );
      await round();
      expect(lines.filter((line) => !line.includes('joined'))).toEqual([]); // never left shared mode
      expect(fleets.every((fleet) => fleet.shared)).toBe(true);
      const perNode = await Promise.all(
        cluster.nodes.map(async (node) => {
          const { stdout } = await run('redis-cli', ['-p', String(node.port), 'DBSIZE']);
          return Number(stdout.trim());
        }),
      );
      expect(perNode.every((keys) => keys > 0)).toBe(true); // the scopes really spread
    } finally {
      for (const registry of registries) await registry.close();
      for (const fleet of fleets) await fleet.close();
    }
  }, 30_000);
});
