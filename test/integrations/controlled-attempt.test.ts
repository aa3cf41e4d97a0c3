import { describe, expect, it } from 'vitest';
import { AttemptControl } from '../../src/integrations/attempt-control.js';
import { VirtualClock } from '../../src/virtual-clock.js';
import { eventLog } from './scripted-server.js';

function setup() {
  const log = eventLog();
  const control = new AttemptControl('test', {
    clock: new VirtualClock({ wallStart: Date.now() }),
    events: log.sink,
  });
  const samples = () => log.events.filter((e) => e.type === 'sample').map((e) => e.status);
  return { control, samples };
}

describe('ControlledAttempt.respondIfRefused', () => {
  it('reports a refusal read off its head at once; later reports are ignored', async () => {
    const { control, samples } = setup();
    for (const status of [429, 503]) {
      const attempt = await control.admit({ url: `https://s${status}.example.com/a` });
      expect(attempt.respondIfRefused({ status, headers: {} })).toBe(true);
      expect(attempt.signal?.status).toBe(status);
      attempt.respond({ status: 200, headers: {} });
    }
    expect(samples()).toEqual([429, 503]);
    expect(control.inflight).toBe(0);
    await control.close();
  });

  it('reports nothing for any other head: the body is still to be read', async () => {
    const { control, samples } = setup();
    const attempt = await control.admit({ url: 'https://api.example.com/b' });
    for (const status of [200, 302, 403, 404, 500]) {
      expect(attempt.respondIfRefused({ status, headers: {} })).toBe(false);
    }
    expect(attempt.ended).toBe(false);
    expect(control.inflight).toBe(1);
    attempt.respond({ status: 200, headers: {} });
    expect(samples()).toEqual([200]);
    expect(attempt.respondIfRefused({ status: 429, headers: {} })).toBe(false);
    expect(samples()).toEqual([200]);
    await control.close();
  });
});
