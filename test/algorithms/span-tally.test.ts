import { describe, expect, it } from 'vitest';
import { SpanTally } from '../../src/algorithms/span-tally.js';

describe('SpanTally', () => {
  it('counts the acceptances sent in its span on top of what the kept send times held of it', () => {
    const tally = new SpanTally({ count: 10, fromMs: 1500 }, 1000, 2000);
    tally.accepted(1999); // in the span
    tally.accepted(2000); // its end is in it
    tally.accepted(1400); // before what the kept sends reached back to: not counted
    tally.accepted(2001); // after the span
    // The kept sends now reach back no further than 1800: the tally's count, from 1500.
    expect(tally.reading({ count: 3, fromMs: 1800 })).toEqual({ count: 12, fromMs: 1500 });
    expect(tally.reading(undefined)).toEqual({ count: 12, fromMs: 1500 });
  });

  it('leaves the reading to the kept send times while they reach back as far', () => {
    const tally = new SpanTally({ count: 10, fromMs: 1000 }, 1000, 2000);
    tally.accepted(1500);
    expect(tally.reading({ count: 11, fromMs: 1000 })).toEqual({ count: 11, fromMs: 1000 });
  });

  it('starts from nothing over the whole span when no send was kept', () => {
    const tally = new SpanTally(undefined, 1000, 2000);
    tally.accepted(1000);
    expect(tally.reading(undefined)).toEqual({ count: 1, fromMs: 1000 });
  });
});
