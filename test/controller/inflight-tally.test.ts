import { describe, expect, it } from 'vitest';
import { InflightTally } from '../../src/controller/inflight-tally.js';

describe('InflightTally', () => {
  it('gives the share of successes sent at a count or more, over this span and the previous', () => {
    const tally = new InflightTally();
    expect(tally.shareFrom(1)).toBe(0);
    for (const inflight of [1, 2, 2, 3]) tally.add(inflight);
    expect(tally.shareFrom(2)).toBe(0.75);
    tally.roll(true);
    for (const inflight of [4, 4, 4, 4]) tally.add(inflight);
    expect(tally.shareFrom(4)).toBe(0.5);
    expect(tally.shareFrom(5)).toBe(0);
    tally.roll(false);
    tally.add(1);
    expect(tally.shareFrom(2)).toBe(0);
  });
});
