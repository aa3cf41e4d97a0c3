import { describe, expect, it } from 'vitest';
import { seededRandom } from '../src/random.js';
import { MinHeap } from '../src/util/heap.js';
import { VirtualClock } from '../src/virtual-clock.js';

describe('VirtualClock', () => {
  it('fires timers in due order, FIFO for equal times, and only when advanced', async () => {
    const clock = new VirtualClock();
    const fired: string[] = [];
    clock.setTimer(20, () => fired.push('b'));
    clock.setTimer(10, () => fired.push('a1'));
    clock.setTimer(10, () => fired.push('a2'));
    await clock.advance(9);
    expect(fired).toEqual([]);
    await clock.advance(1);
    expect(fired).toEqual(['a1', 'a2']);
    await clock.advance(100);
    expect(fired).toEqual(['a1', 'a2', 'b']);
    expect(clock.now()).toBe(110);
  });

  it('lets awaiting code run between timers, so chained sleeps see the right time', async () => {
    const clock = new VirtualClock();
    const seen: number[] = [];
    const task = (async () => {
      for (let i = 0; i < 3; i++) {
        await clock.sleep(5);
        seen.push(clock.now());
      }
    })();
    await clock.run();
    await task;
    expect(seen).toEqual([5, 10, 15]);
  });

  it('cancels timers and rejects aborted sleeps with the signal reason', async () => {
    const clock = new VirtualClock();
    let fired = false;
    const cancel = clock.setTimer(5, () => {
      fired = true;
    });
    cancel();
    const controller = new AbortController();
    const sleeping = clock.sleep(50, controller.signal);
    controller.abort(new Error('stop'));
    await expect(sleeping).rejects.toThrow('stop');
    await clock.run();
    expect(fired).toBe(false);
    expect(clock.pendingTimers).toBe(0);
  });

  it('derives wall time from the monotonic time', async () => {
    const clock = new VirtualClock({ start: 1000, wallStart: 5_000_000 });
    await clock.advance(250);
    expect(clock.wallNow()).toBe(5_000_250);
  });
});

describe('seededRandom', () => {
  it('is reproducible by seed and spreads uniformly over [0, 1)', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom('other');
    const xs = Array.from({ length: 10_000 }, () => a.next());
    expect(xs.slice(0, 5)).toEqual(Array.from({ length: 5 }, () => b.next()));
    expect(c.next()).not.toBe(xs[0]);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(mean).toBeGreaterThan(0.48);
    expect(mean).toBeLessThan(0.52);
  });
});

describe('MinHeap', () => {
  it('pops in key order, insertion order among equal keys', () => {
    const heap = new MinHeap<string>();
    const rng = seededRandom(1);
    const keys = Array.from({ length: 200 }, () => Math.floor(rng.next() * 20));
    for (const [i, k] of keys.entries()) heap.push(k, `${k}:${i}`);
    const out: string[] = [];
    while (heap.size > 0) out.push(heap.pop() as string);
    const expected = keys.map((k, i) => ({ k, i })).sort((x, y) => x.k - y.k || x.i - y.i);
    expect(out).toEqual(expected.map(({ k, i }) => `${k}:${i}`));
  });
});
