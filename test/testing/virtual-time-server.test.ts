import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import type { ModelRequest, ServerModel } from '../../src/sim/models/model.js';
import { QuotaModel } from '../../src/sim/models/quota.js';
import { startMockServer } from '../../src/testing/mock-server.js';
import { VirtualClock } from '../../src/virtual-clock.js';

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached within 2 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('startMockServer on a VirtualClock', () => {
  it('takes arrival times, waits and the Date header from the injected clock', async () => {
    const clock = new VirtualClock({ start: 500, wallStart: Date.UTC(2026, 0, 1) });
    const seen: ModelRequest[] = [];
    const inner = new QuotaModel({ limit: 10, windowMs: 60_000, latencyMs: 1000 });
    const model: ServerModel = {
      name: 'spy',
      arrive: (req) => {
        seen.push(req);
        return inner.arrive(req);
      },
      capacity: () => inner.capacity(),
    };
    const server = await startMockServer({ model, clock });
    try {
      await clock.advance(2000);
      const pending = request(`${server.url}/a?b=1`);
      await until(() => server.stats().inFlight === 1);
      expect(seen[0]).toMatchObject({ id: 1, at: 2000, path: '/a?b=1', client: '127.0.0.1' });
      expect(seen[0]?.wallAt).toBe(Date.UTC(2026, 0, 1, 0, 0, 2));
      await clock.advance(999);
      const realPause = new Promise((resolve) => setTimeout(() => resolve('waiting'), 50));
      // Not a virtual millisecond early, however long it waits in real time.
      expect(await Promise.race([pending.then(() => 'answered'), realPause])).toBe('waiting');
      await clock.advance(1);
      const res = await pending;
      expect(res.statusCode).toBe(200);
      expect(res.headers.date).toBe('Thu, 01 Jan 2026 00:00:03 GMT');
      expect(res.headers['x-ratelimit-reset']).toBe('58');
      await res.body.text();
      await until(() => server.stats().inFlight === 0);
      expect(server.stats()).toMatchObject({ firstArrivalMs: 2000, uptimeMs: 3000 });
    } finally {
      await server.close();
    }
    expect(clock.pendingTimers).toBe(0);
  });
});
