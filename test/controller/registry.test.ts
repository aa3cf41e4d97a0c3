import { describe, expect, it } from 'vitest';
import { controlSetup } from '../../src/controller/defaults.js';
import { ScopeRegistry } from '../../src/controller/registry.js';
import { ScopePausedError } from '../../src/errors.js';
import { EventRecorder } from '../../src/events/recorder.js';
import { seededRandom } from '../../src/random.js';
import type { Signal } from '../../src/signal.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { VirtualClock } from '../../src/virtual-clock.js';

const ok: Signal = { kind: 'ok', reason: '200', status: 200 };
const throttled: Signal = { kind: 'throttled', reason: '429', status: 429, retryAfterMs: 100 };

function registry(extra: Partial<ConstructorParameters<typeof ScopeRegistry>[0]> = {}) {
  const clock = new VirtualClock();
  const store = new MemoryStore();
  const recorder = new EventRecorder();
  const scopes = new ScopeRegistry({
    setup: controlSetup({ maxConcurrency: 2, initialConcurrency: 2 }),
    clock,
    random: seededRandom(1),
    store,
    events: recorder.sink,
    ...extra,
  });
  return { clock, store, recorder, scopes };
}

describe('ScopeRegistry', () => {
  it('admits a request needing two scopes only when both have room, and reports to both', async () => {
    const { scopes } = registry();
    const a = await scopes.admit(['account:k', 'host:x.test']);
    await scopes.admit(['account:k', 'host:y.test']);
    // account:k is full (2 in flight) though host:z.test is empty
    let third = false;
    const waiting = scopes.admit(['host:z.test', 'account:k']).then(() => {
      third = true;
    });
    await Promise.resolve();
    expect(third).toBe(false);
    // scopes are taken in a fixed (sorted) order: host:z.test is not held while account:k is full
    expect(scopes.get('host:z.test')?.inflight ?? 0).toBe(0);
    a.report(ok);
    await waiting;
    expect(scopes.get('account:k')?.inflight).toBe(2);
    expect(scopes.get('host:x.test')?.inflight).toBe(0);
  });

  it('gives back what it took when a later scope refuses (no stranded slots)', async () => {
    const { scopes, clock } = registry();
    await scopes.admit('host:b.test');
    await scopes.admit('host:b.test');
    const attempt = scopes.admit(['host:a.test', 'host:b.test'], { timeoutMs: 50 });
    const failed = expect(attempt).rejects.toThrow(/not admitted within/);
    await clock.advance(50);
    await failed;
    expect(scopes.get('host:a.test')?.inflight).toBe(0);
  });

  it('evicts idle scopes, saving what they learned, and resumes from it', async () => {
    const { scopes, clock, store, recorder } = registry({ idleMs: 60_000 });
    for (let i = 0; i < 40; i++) {
      const permit = await scopes.admit('host:slow.test');
      await clock.advance(50);
      permit.report(i < 39 ? ok : throttled); // 20 req/s accepted, then a 429: a ceiling to learn
    }
    const learned = scopes.get('host:slow.test')?.snapshot();
    if (learned === undefined) throw new Error('the scope should be live');
    await clock.advance(61_000);
    expect(await scopes.sweep()).toBe(1);
    expect(scopes.size).toBe(0);
    expect(recorder.filter('evict')).toHaveLength(1);
    expect(await store.load('host:slow.test')).toMatchObject({ rate: learned.rate });
    const resumed = await scopes.open('host:slow.test');
    expect(resumed.rate).toBeLessThan(Infinity); // paced from the start: the 429 was remembered
    expect(resumed.snapshot().rate).toMatchObject({ ceiling: learned.rate?.ceiling });
  });

  it('keeps a scope with work in flight, however long it has been', async () => {
    const { scopes, clock } = registry({ idleMs: 1000 });
    await scopes.admit('host:busy.test');
    await clock.advance(5000);
    expect(await scopes.sweep()).toBe(0);
    expect(scopes.size).toBe(1);
  });
});

describe('ScopeRegistry multi-scope details', () => {
  it('one deadline for all scopes, and the send time is when the last scope admitted', async () => {
    const { scopes, clock } = registry();
    await scopes.admit('host:b.test');
    await scopes.admit('host:b.test');
    const wait = scopes.admit(['account:a', 'host:b.test'], { timeoutMs: 100 });
    const failed = expect(wait).rejects.toThrow(/not admitted within/);
    await clock.advance(100);
    await failed; // not 100 ms per scope
    expect(clock.now()).toBe(100);
  });

  it('stamps a composite permit with the time the request could really go', async () => {
    const { scopes, clock } = registry();
    const first = await scopes.admit('host:b.test');
    await scopes.admit('host:b.test');
    const both = scopes.admit(['account:a', 'host:b.test']);
    await clock.advance(500);
    first.report(ok);
    const permit = await both;
    expect(permit.sentAt).toBe(500);
  });

  it("keeps the caller's maxPauseWaitMs at every scope a request spans", async () => {
    const { scopes, clock } = registry();
    const paused = await scopes.admit('host:b.test');
    paused.report({ ...throttled, retryAfterMs: 5_000 }); // host:b.test pauses for 5 s
    let failedAt: number | undefined;
    const outcome = scopes.admit(['account:a', 'host:b.test'], { maxPauseWaitMs: 1_000 }).then(
      () => 'admitted',
      (error: unknown) => {
        failedAt = clock.now();
        return error;
      },
    );
    await clock.advance(5_000);
    expect(await outcome).toBeInstanceOf(ScopePausedError);
    expect(failedAt).toBe(0); // at once, not after waiting out the pause
    expect(scopes.get('account:a')?.inflight).toBe(0);
  });

  it('rejects an empty list of scopes', async () => {
    const { scopes } = registry();
    await expect(scopes.admit([])).rejects.toThrow(/`scopes` must be at least one scope key/);
  });

  it('starts a scope fresh when its saved state is corrupt', async () => {
    const { scopes, store } = registry();
    await store.save('host:bad.test', {
      limit: { value: 'many' },
      rate: {},
      savedAt: 0,
    });
    const permit = await scopes.admit('host:bad.test');
    expect(scopes.get('host:bad.test')?.limit).toBe(2);
    permit.report(ok);
  });
});

describe('ScopeRegistry.close', () => {
  it('cancels every timer and rejects callers still waiting', async () => {
    const { scopes, clock } = registry();
    // open a breaker on one scope and park a caller behind it
    for (let i = 0; i < 5; i++) {
      const permit = await scopes.admit('host:down.test');
      await clock.advance(100);
      permit.report({ kind: 'refused', reason: 'ECONNREFUSED' });
      await clock.advance(1); // the next request goes after this failure is known
    }
    expect(scopes.get('host:down.test')?.breaker).toBe('open');
    const parked = scopes.admit('host:down.test');
    const rejected = expect(parked).rejects.toMatchObject({ code: 'ERR_RATEWISE_CLOSED' });
    expect(clock.pendingTimers).toBeGreaterThan(0);
    await scopes.close();
    await rejected;
    expect(clock.pendingTimers).toBe(0);
    expect(scopes.size).toBe(0);
  });
});
