import { describe, expect, it } from 'vitest';
import { systemClock } from '../src/clock.js';

describe('systemClock.setTimer', () => {
  it('never fires before now() has advanced by the delay (setTimeout alone often does)', async () => {
    const lateness: number[] = [];
    for (let i = 0; i < 40; i++) {
      // Burn part of a loop turn so the loop's cached time lags behind performance.now().
      const busyUntil = performance.now() + 0.3 + (i % 5) * 0.3;
      while (performance.now() < busyUntil);
      const delay = 2 + (i % 3) * 0.7;
      const start = systemClock.now();
      await new Promise<void>((resolve) =>
        systemClock.setTimer(delay, () => {
          lateness.push(systemClock.now() - start - delay);
          resolve();
        }),
      );
    }
    expect(Math.min(...lateness)).toBeGreaterThanOrEqual(0);
  });

  it('can be cancelled, also while re-arming', async () => {
    let fired = false;
    const cancel = systemClock.setTimer(5, () => {
      fired = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 4));
    cancel();
    await new Promise((resolve) => setTimeout(resolve, 15));
    expect(fired).toBe(false);
  });
});
