import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer } from '../../src/redis/redis-process.js';
import { ensureBuilt } from '../cli/cli-process.js';
import { pause } from './fleet-helpers.js';

const BUILT = join(import.meta.dirname, '..', '..', 'dist', 'redis', 'index.js');

/** Whether something accepts connections on the loopback port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

beforeAll(() => ensureBuilt(), 120_000);

describe('startRedisServer', () => {
  it('leaves no redis-server behind when the process that started it is killed (SIGKILL)', async () => {
    const code = `import { startRedisServer } from ${JSON.stringify(BUILT)};
const redis = await startRedisServer();
console.log(redis.port);
setInterval(() => undefined, 60_000);`;
    const owner = spawn(process.execPath, ['--input-type=module', '-e', code], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let port = 0;
    try {
      const [line] = await once(owner.stdout, 'data');
      port = Number(String(line).trim());
      expect(await listening(port)).toBe(true);
      owner.kill('SIGKILL');
      let up = true;
      for (let waited = 0; up && waited < 10_000; waited += 50) {
        await pause(50);
        up = await listening(port);
      }
      expect(up).toBe(false);
    } finally {
      owner.kill('SIGKILL');
      // Should the watchdog fail, this test still leaves no server behind.
      if (port > 0)
        execFile('redis-cli', ['-p', String(port), 'shutdown', 'nosave'], () => undefined);
    }
  }, 30_000);

  it('stops, starts again on the same port and closes while its watchdog stays out of the way', async () => {
    const redis = await startRedisServer();
    try {
      await redis.stop();
      expect(await listening(redis.port)).toBe(false);
      await redis.start();
      await pause(300); // a watchdog that fired on the stop would have stopped this one by now
      expect(await listening(redis.port)).toBe(true);
    } finally {
      await redis.close();
    }
    expect(await listening(redis.port)).toBe(false);
  }, 30_000);
});
