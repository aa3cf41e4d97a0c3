import { describe, expect, it } from 'vitest';
import { FirstRefusal } from '../../src/algorithms/first-refusal.js';
import { sample } from './samples.js';

describe('FirstRefusal', () => {
  it('says granted after when the sends just after the first refused one were granted more than refused', () => {
    // A GCRA of burst 9 refused a slow start's clump at 1200 ms and granted the sends that followed.
    const first = new FirstRefusal();
    first.onSample(sample({ at: 1100, sentAt: 1000 })); // before any refusal: not counted
    first.onSample(sample({ at: 1200, sentAt: 1200, kind: 'throttled', inflight: 18 }));
    first.onSample(sample({ at: 1200, sentAt: 1200, kind: 'throttled', inflight: 17 })); // same clump
    expect(first.grantedAfter).toBe(false);
    first.onSample(sample({ at: 1560, sentAt: 1210 }));
    first.onSample(sample({ at: 1570, sentAt: 1250 }));
    first.onSample(sample({ at: 1580, sentAt: 1290, kind: 'throttled' }));
    expect(first.grantedAfter).toBe(true);
  });

  it('does not where a window refused everything after its count, nor for sends long after', () => {
    const window = new FirstRefusal();
    window.onSample(sample({ at: 3730, sentAt: 3730, kind: 'throttled', inflight: 26 }));
    window.onSample(sample({ at: 3760, sentAt: 3760, kind: 'throttled' }));
    window.onSample(sample({ at: 4300, sentAt: 3900 })); // 170 ms after: the window had reset
    expect(window.grantedAfter).toBe(false);
  });
});
