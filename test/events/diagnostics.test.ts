import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import { controlSetup } from '../../src/controller/defaults.js';
import { ScopeRegistry } from '../../src/controller/registry.js';
import {
  type AdmissionMessage,
  admissionChannel,
  CHANNEL_NAMES,
  type LimitMessage,
  type PauseMessage,
  type ReleaseMessage,
} from '../../src/events/diagnostics.js';
import { VirtualClock } from '../../src/virtual-clock.js';

function listen<T>(name: string): { messages: T[]; stop(): void } {
  const messages: T[] = [];
  const handler = (message: unknown) => messages.push(message as T);
  subscribe(name, handler);
  return { messages, stop: () => unsubscribe(name, handler) };
}

describe('diagnostics channels', () => {
  it('publish admission, release, limit and pause as they happen', async () => {
    const clock = new VirtualClock();
    const registry = new ScopeRegistry({ setup: controlSetup({ initialConcurrency: 8 }), clock });
    const admitted: AdmissionMessage[] = [];
    const tracer = { asyncEnd: (message: AdmissionMessage) => admitted.push(message) };
    admissionChannel.subscribe(tracer as never);
    const releases = listen<ReleaseMessage>(CHANNEL_NAMES.release);
    const limits = listen<LimitMessage>(CHANNEL_NAMES.limit);
    const pauses = listen<PauseMessage>(CHANNEL_NAMES.pause);
    try {
      const first = await registry.admit('host:a');
      const second = await registry.admit('host:a');
      await clock.advance(100);
      first.report({ kind: 'throttled', reason: '429', status: 429, retryAfterMs: 2000 });
      second.release();
      expect(admitted.map((m) => [m.scopes, m.result?.sentAt])).toEqual([
        ['host:a', 0],
        ['host:a', 0],
      ]);
      expect(releases.messages.map((m) => [m.signal, m.status, m.rttMs])).toEqual([
        ['throttled', 429, 100],
        [undefined, undefined, 100],
      ]);
      // A refusal of the rate (nothing was accepted yet): the rate is learned, the limit stays.
      expect(limits.messages.find((m) => m.kind === 'rate')).toMatchObject({
        scope: 'host:a',
        from: Infinity,
        reason: 'throttled',
      });
      expect(limits.messages.find((m) => m.kind === 'concurrency')).toBeUndefined();
      expect(pauses.messages).toEqual([
        expect.objectContaining({ scope: 'host:a', ms: 2000, reason: 'throttled' }),
      ]);
      expect(registry.get('host:a')?.pauseLeftMs).toBe(2000);
    } finally {
      admissionChannel.unsubscribe(tracer as never);
      for (const listener of [releases, limits, pauses]) listener.stop();
      await registry.close();
    }
  });
});
