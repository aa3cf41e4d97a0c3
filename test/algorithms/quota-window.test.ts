import { describe, expect, it } from 'vitest';
import { QuotaWindow } from '../../src/algorithms/quota-window.js';
import { sample } from './samples.js';

/** Reads an answer sent at `sentAt` and back 300 ms later, with `outstanding` others in flight. */
function read(
  window: QuotaWindow,
  sentAt: number,
  remaining?: number,
  resetMs?: number,
  outstanding = 0,
) {
  return window.observe(sample({ sentAt, at: sentAt + 300, outstanding }), remaining, resetMs);
}

describe('QuotaWindow', () => {
  it('bounds the end from the header until a boundary is seen: the lowest bound of the window', () => {
    const window = new QuotaWindow();
    expect(read(window, 0)).toBeUndefined();
    expect(read(window, 100, 50, 10_000)).toBe(10_400); // arrived at 400, 10 s at the latest
    expect(read(window, 200, 49, 10_000)).toBe(10_400); // 10,500 bounds it less
    expect(read(window, 300, 48, 9000)).toBe(9600);
    // Sent after the bound: the next window's.
    expect(read(window, 9700, 100, 10_000)).toBe(20_000);
  });

  it('learns a boundary as a send time from remaining going up, narrowed by overtaken answers', () => {
    const window = new QuotaWindow();
    window.state(10_000);
    read(window, 9_900, 3, 1000);
    read(window, 10_050, 99, 10_000, 2); // up by more than those in flight: in (9,900, 10,050]
    expect(window.boundary).toBe(10_050);
    read(window, 9_950, 2, 1000); // overtaken, still the old window's
    read(window, 10_020, 100, 10_000); // overtaken, the new window's
    expect(window.boundary).toBe(10_020);
    read(window, 10_100, 98, 10_000);
    expect(read(window, 15_000, 50, 5000)).toBe(20_020);
  });

  it('does not take answers overtaking each other for a boundary', () => {
    const window = new QuotaWindow();
    read(window, 1000, 40, 3000, 5);
    read(window, 1100, 44, 3000, 5); // up by 4 with 5 in flight
    expect(window.boundary).toBe(-Infinity);
  });

  it('narrows the phase with the brackets of later boundaries, whole windows apart', () => {
    const window = new QuotaWindow();
    window.state(10_000);
    read(window, 9_800, 0, 1000);
    read(window, 10_100, 99, 10_000); // (9,800, 10,100]
    read(window, 19_990, 0, 1000);
    read(window, 20_300, 99, 10_000); // (19,990, 20,300]: with the first, (19,990, 20,100]
    expect(window.boundary).toBe(20_100);
    read(window, 29_700, 0, 1000);
    read(window, 30_020, 99, 10_000); // (29,990, 30,020]
    expect(window.boundary).toBe(30_020);
  });

  it('learns the window length in whole seconds from the distance between two boundaries', () => {
    const window = new QuotaWindow();
    read(window, 9_900, 0, 1000);
    read(window, 10_010, 59, 10_000);
    expect(window.windowMs).toBe(0);
    // No answer in the next window: the one after is two windows on, as the 10 s reset tells.
    read(window, 29_950, 0, 1000);
    read(window, 30_040, 59, 10_000);
    expect(window.windowMs).toBe(10_000);
    // Two windows on, the first bracket (9,900, 10,010] narrows the second to (29,950, 30,010].
    expect(read(window, 35_000, 30, 5000)).toBe(40_010);
  });

  it('drops a phase the server’s reset contradicts (the windows moved)', () => {
    const window = new QuotaWindow();
    window.state(10_000);
    read(window, 9_900, 0, 1000);
    read(window, 10_000, 99, 10_000);
    // The phase ends this window at 20,000; the header says 14,300 at the latest.
    expect(read(window, 12_000, 50, 2000)).toBe(14_300);
    expect(window.boundary).toBe(-Infinity);
  });
});
