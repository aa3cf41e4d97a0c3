import { afterEach, describe, expect, it } from 'vitest';
import { type HostileServer, startHostileServer } from '../../src/testing/hostile-server.js';
import { VirtualClock } from '../../src/virtual-clock.js';

let server: HostileServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Status of one GET to `path` on the server. */
async function status(path: string): Promise<number> {
  const response = await fetch(`${server?.url}${path}`);
  await response.arrayBuffer();
  return response.status;
}

describe('startHostileServer', () => {
  it('/flapping is up for periodMs, then down as long, on the clock it is given', async () => {
    const clock = new VirtualClock();
    server = await startHostileServer({ clock });
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) {
      seen.push(await status('/flapping?periodMs=1000'));
      await clock.advance(500);
      seen.push(await status('/flapping?periodMs=1000'));
      await clock.advance(500);
    }
    expect(seen).toEqual([200, 200, 503, 503, 200, 200, 503, 503, 200, 200, 503, 503]);
    expect(server.hits.get('/flapping')).toBe(12);
  });

  it('answers an unknown path with 404 and counts it', async () => {
    server = await startHostileServer();
    expect(await status('/no-such-attack')).toBe(404);
    expect(server.hits.get('/no-such-attack')).toBe(1);
  });

  it('checks its options, naming the one that is wrong', async () => {
    await expect(startHostileServer({ port: -1 })).rejects.toThrow(/port/);
    await expect(startHostileServer({ clock: {} as VirtualClock })).rejects.toThrow(/clock/);
    await expect(startHostileServer({ bogus: 1 } as never)).rejects.toThrow(/bogus/);
  });
});
