import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { Pacer } from '../../src/enforce/pacer.js';
import { VirtualClock } from '../../src/virtual-clock.js';
import { hasty } from '../controller/hasty-clock.js';

async function takeTimes(pacer: Pacer, clock: VirtualClock, n: number): Promise<number[]> {
  const times: number[] = [];
  const all = Array.from({ length: n }, () => pacer.take().then(() => times.push(clock.now())));
  await clock.run();
  await Promise.all(all);
  return times;
}

describe('Pacer', () => {
  it('spaces requests evenly at the configured rate, woken by its own timer', async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer({ rate: 10, clock });
    expect(await takeTimes(pacer, clock, 5)).toEqual([0, 100, 200, 300, 400]);
  });

  it('keeps its rate when every wake-up fires late: the lateness is credit, not lost', async () => {
    const clock = new VirtualClock();
    // A real timer fires up to a millisecond late; this one is always 2 ms late.
    const lateClock: Clock = {
      now: () => clock.now(),
      wallNow: () => clock.wallNow(),
      setTimer: (ms, callback) => clock.setTimer(ms + 2, callback),
      sleep: (ms, signal) => clock.sleep(ms + 2, signal),
    };
    const pacer = new Pacer({ rate: 40, clock: lateClock });
    const times = await takeTimes(pacer, clock, 41);
    // 40 intervals of 25 ms: 1000 ms at the exact rate (1080 if each lateness were lost).
    expect(times.at(-1)).toBeLessThan(1003);
    for (let i = 1; i < times.length; i++) {
      expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBeGreaterThanOrEqual(0);
    }
  });

  it('hands out a token when its wake-up fires early, owed, without waking ever closer to it', async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer({ rate: 0.1, clock: hasty(clock) });
    let wakeUps = 0;
    const counting: Clock = {
      ...hasty(clock),
      setTimer: (ms, callback) =>
        hasty(clock).setTimer(ms, () => {
          wakeUps++;
          callback();
        }),
    };
    const counted = new Pacer({ rate: 0.1, clock: counting });
    const taken: number[] = [];
    for (const p of [pacer, counted]) {
      p.tryTake();
      void p.take().then(() => taken.push(clock.now()));
    }
    await clock.advance(10_000);
    // Both went within the token's 10 s (a millisecond early), on one wake-up each.
    expect(taken).toEqual([9999, 9999]);
    expect(wakeUps).toBe(1);
    // The millisecond is owed: taken at 10 s, the next token is due at 20 s (and goes 1 ms early).
    void counted.take().then(() => taken.push(clock.now()));
    await clock.advance(9_998);
    expect(taken).toHaveLength(2);
    await clock.advance(1);
    expect(taken[2]).toBe(19_999);
  });

  it('allows a burst after an idle spell, then paces', async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer({ rate: 4, burst: 3, clock });
    expect(await takeTimes(pacer, clock, 5)).toEqual([0, 0, 0, 250, 500]);
  });

  it('applies a rate change to callers already parked', async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer({ rate: 1, clock });
    const times: number[] = [];
    const all = Array.from({ length: 3 }, () => pacer.take().then(() => times.push(clock.now())));
    await clock.advance(10);
    pacer.setRate(100);
    await clock.run();
    await Promise.all(all);
    // 0.01 token earned at 1/s is kept; the remaining 0.99 comes at 100/s.
    expect(times.map((t) => Math.round(t * 10) / 10)).toEqual([0, 19.9, 29.9]);
  });

  it('holds every caller during a pause and releases them when it ends', async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer({ rate: Infinity, clock });
    pacer.pauseUntil(1000);
    pacer.pauseUntil(500); // an earlier end never shortens the pause
    expect(pacer.tryTake()).toBe(false);
    expect(await takeTimes(pacer, clock, 3)).toEqual([1000, 1000, 1000]);
  });

  it('never stalls on float rounding at large clock values', async () => {
    const clock = new VirtualClock({ start: 3_600_000.123 });
    const pacer = new Pacer({ rate: 3, clock });
    const times = await takeTimes(pacer, clock, 4);
    expect(times).toHaveLength(4);
    expect((times[3] as number) - (times[0] as number)).toBeCloseTo(1000, 0);
  });

  it('validates options', () => {
    expect(() => new Pacer({ rate: 0 })).toThrow(/option `rate`/);
    expect(() => new Pacer({ burst: 0.5 })).toThrow(/option `burst` must be a number >= 1/);
    expect(() => new Pacer({ rte: 3 } as never)).toThrow(/unknown option `rte`/);
  });
});
