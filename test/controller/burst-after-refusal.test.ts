import { describe, expect, it } from 'vitest';
import { BurstAfterRefusal } from '../../src/controller/burst-after-refusal.js';
import { sample } from '../algorithms/samples.js';

/** The slow start's first refusal: sent at 100, heard at 105. */
const first = sample({ at: 105, sentAt: 100, kind: 'throttled', inflight: 20 });
const ok = (sentAt: number) => sample({ at: sentAt + 80, sentAt });
const refused = (sentAt: number) => sample({ at: sentAt + 3, sentAt, kind: 'throttled' });

describe('BurstAfterRefusal', () => {
  it('counts the sends made from the refused one until it was heard, in any order of arrival', () => {
    const after = new BurstAfterRefusal(first);
    expect(after.granted).toBe(false);
    expect(after.open).toBe(false);
    after.onSample(refused(102));
    expect(after.open).toBe(false);
    after.onSample(ok(101));
    expect(after.open).toBe(true);
    expect(after.granted).toBe(false);
    after.onSample(ok(104));
    expect(after.granted).toBe(true);
    // Sent before it, or after it was heard: not the burst's answer to it.
    for (const sentAt of [99, 106]) after.onSample(refused(sentAt));
    expect(after.granted).toBe(true);
  });

  it('counts successes sent in the refused one’s instant only once one sent after it was granted', () => {
    const after = new BurstAfterRefusal(first);
    after.onSample(ok(100));
    after.onSample(ok(100));
    expect(after.open).toBe(false);
    after.onSample(refused(102));
    after.onSample(refused(103));
    after.onSample(ok(104));
    expect(after.granted).toBe(true);
  });
});
