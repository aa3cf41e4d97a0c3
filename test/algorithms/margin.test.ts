import { describe, expect, it } from 'vitest';
import { adaptedMargin, refutedReadingMargin } from '../../src/algorithms/margin.js';

describe('refutedReadingMargin', () => {
  it('widens the margin as a refusal at the held rate with the ceiling where it was does', () => {
    const learned = { ceiling: 10, margin: 0.04 };
    const same = adaptedMargin(learned, 9.8, false);
    expect(refutedReadingMargin(0.04)).toBeCloseTo(same.margin);
  });

  it('widens a margin of 5 % or more, whose held rate never reads as the ceiling "the same"', () => {
    const learned = { ceiling: 3.909, margin: 0.054 };
    const held = learned.ceiling * (1 - learned.margin);
    expect(adaptedMargin(learned, held, false).margin).toBe(0.054);
    expect(refutedReadingMargin(0.054)).toBeCloseTo(0.081);
  });

  it('stays within the margin’s bounds', () => {
    expect(refutedReadingMargin(0.2)).toBe(0.25);
  });
});
