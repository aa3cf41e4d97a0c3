import { describe, expect, it } from 'vitest';
import { AdaptiveRate } from '../../src/algorithms/adaptive-rate.js';
import { GradientLimit } from '../../src/algorithms/gradient.js';
import { controlSetup } from '../../src/controller/defaults.js';
import { ScopeRegistry } from '../../src/controller/registry.js';
import { seededRandom } from '../../src/random.js';
import type { Signal } from '../../src/signal.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { VirtualClock } from '../../src/virtual-clock.js';

const ok: Signal = { kind: 'ok', reason: '200', status: 200 };
/** A refusal asking for 30 s of silence: it paces the rate, pauses it and opens the breaker. */
const refused: Signal = { kind: 'throttled', reason: '429', status: 429, retryAfterMs: 30_000 };
const START = Date.UTC(2026, 0, 1);

/** One process: its own monotonic clock (starting at `start`, wall-clock `wallStart`) and registry. */
function process(store: MemoryStore, start: number, wallStart: number) {
  const clock = new VirtualClock({ start, wallStart });
  const scopes = new ScopeRegistry({
    // A factory that knows nothing of saved state: the registry resumes what it builds.
    setup: controlSetup({
      control: () => ({ limit: new GradientLimit(), rate: new AdaptiveRate() }),
    }),
    clock,
    random: seededRandom(7),
    store,
  });
  return { clock, scopes };
}

/** What a scope decides now, its pauses as time left. */
function decisions(scopes: ScopeRegistry, clock: VirtualClock) {
  const scope = scopes.get('host:x.test');
  if (scope === undefined) throw new Error('the scope should be live');
  return {
    limit: scope.limit,
    rate: scope.rate,
    pauseLeftMs: scope.pauseLeftMs,
    breaker: scope.breaker,
    breakerLeftMs: (scope.pause?.until ?? 0) - clock.now(),
  };
}

describe('a scope saved by one process resumes in another', () => {
  it('with its limit, its rate and the time left of its pauses, whatever each monotonic clock reads', async () => {
    const store = new MemoryStore();
    const a = process(store, 7_000_000, START);
    for (let i = 0; i < 60; i++) {
      const permit = await a.scopes.admit('host:x.test');
      await a.clock.advance(40);
      permit.report(i < 59 ? ok : refused);
    }
    const before = decisions(a.scopes, a.clock);
    expect(before.rate).toBeLessThan(Infinity); // something learned
    expect(before.breaker).toBe('open');
    expect(before.pauseLeftMs).toBeGreaterThan(10_000);
    await a.scopes.persist();

    // Process B starts its monotonic clock at 0, ten seconds of wall-clock time later.
    const b = process(store, 0, a.clock.wallNow() + 10_000);
    await b.scopes.open('host:x.test');
    expect(decisions(b.scopes, b.clock)).toEqual({
      ...before,
      pauseLeftMs: before.pauseLeftMs - 10_000,
      breakerLeftMs: before.breakerLeftMs - 10_000,
    });
  });

  it('keeps the times in the store as wall-clock epoch ms', async () => {
    const store = new MemoryStore();
    const a = process(store, 123_456, START);
    const permit = await a.scopes.admit('host:x.test');
    await a.clock.advance(100);
    permit.report(refused);
    await a.scopes.persist();
    const saved = await store.load('host:x.test');
    expect(saved?.savedAt).toBe(START + 100);
    expect(saved?.breaker?.openedAt).toBe(START + 100);
    expect(saved?.rate?.pauseTo).toBe(START + 100 + 30_000);
  });
});
