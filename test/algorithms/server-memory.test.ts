import { describe, expect, it } from 'vitest';
import { GrantHistory } from '../../src/algorithms/grant-history.js';
import { ServerMemory } from '../../src/algorithms/server-memory.js';

describe('GrantHistory', () => {
  it('counts accepted sends by send time over a span it reaches back to', () => {
    const history = new GrantHistory(1000);
    for (let t = 1000; t < 11_000; t += 50) history.add(t);
    expect(history.countIn(1000, 10_999)).toBe(200);
    expect(history.countIn(6000, 10_999)).toBe(100);
    expect(history.countIn(500, 10_999)).toBeUndefined(); // before it began
  });

  it('forgets what is older than a minute, and says so', () => {
    const history = new GrantHistory(0);
    for (let t = 0; t < 70_000; t += 100) history.add(t);
    expect(history.countIn(60_000, 69_999)).toBe(100);
    expect(history.countIn(1000, 69_999)).toBeUndefined();
  });
});

describe('ServerMemory', () => {
  it('learns nothing from a server that reopens within two seconds of refusing', () => {
    const memory = new ServerMemory();
    memory.onRefusal(5000, 0, true);
    memory.onClosed(6000);
    memory.onAccepted(6500);
    expect(memory.ms).toBe(0);
    expect(memory.remembered(7000)).toBe(Number.POSITIVE_INFINITY);
  });

  it('learns a long memory as the spell of sending and the time it stayed closed after it', () => {
    // A 10 s log: sent from 1 s to 6.4 s (245 at 45 req/s), refused; closed at 7.4 s and 9.4 s; open at 11.7 s.
    const memory = new ServerMemory();
    memory.onRefusal(6400, 1000, true);
    memory.onClosed(7400);
    memory.onClosed(9400);
    memory.onAccepted(11_700);
    expect(memory.ms).toBe(8400); // at least the 5.4 s spell and the 3 s it was seen closed
    for (let t = 11_700; t < 22_000; t += 40) memory.onAccepted(t);
    expect(memory.remembered(20_100)).toBeCloseTo(25, 0); // 25 req/s over the 8.4 s before
  });

  it('learns nothing from a refusal that named its pause: the server said how long to wait', () => {
    const memory = new ServerMemory();
    memory.onRefusal(6400, 1000, false);
    memory.onClosed(9400);
    memory.onAccepted(11_700);
    expect(memory.ms).toBe(0);
  });
});
