import { describe, expect, it } from 'vitest';
import { boundedByGrant } from '../../src/algorithms/first-count.js';
import { RateMeter } from '../../src/algorithms/rate-meter.js';
import { sample } from './samples.js';

/** A meter that saw 30 requests sent over [2000, 2300) accepted 100 ms later: a 1 s window's grant since a pause. */
function granted30(): RateMeter {
  const meter = new RateMeter(5000);
  for (let sentAt = 2000; sentAt < 2300; sentAt += 10) {
    const s = sample({ sentAt, at: sentAt + 100 });
    meter.advance(s, Infinity);
    meter.accept(s);
  }
  return meter;
}

/** The sends since a 1 s pause that ended at 2000, up to the refusal that refuted the trial. */
const WINDOW = { from: 2000, to: 2310, spanMs: 1000 };

describe('boundedByGrant', () => {
  it('bounds a first count by the grant since the pause where it reads above the ceiling', () => {
    expect(boundedByGrant(41, WINDOW, granted30(), 26)).toBeCloseTo(30, 6);
  });

  it('bounds it by a grant a little under the ceiling: the refusal read the burst high, under timing noise', () => {
    // 0-10 ms of noise each way bunched the burst on resuming: the refusal read 31.1-32.4 req/s.
    expect(boundedByGrant(41, WINDOW, granted30(), 32.4)).toBeCloseTo(30, 6);
  });

  it('leaves it where the grant reads far under the ceiling: a pause longer than the window', () => {
    expect(boundedByGrant(41, { ...WINDOW, spanMs: 2000 }, granted30(), 26)).toBe(41); // 15 of 26
    expect(boundedByGrant(41, WINDOW, granted30(), 36)).toBe(41);
  });
});
