import { describe, expect, it } from 'vitest';
import { PenaltySpells } from '../../src/algorithms/penalty-spells.js';

// The first accepted request of each scope below was sent at 0; `onPenalty`'s last argument is
// how many the scope accepted in all by then.

describe('PenaltySpells', () => {
  it('reads a penalty met again after the same count over both spells and the block between', () => {
    // 1,200 in the first 14 s, a minute's block, 1,100 in the 20 s after it, blocked again:
    // 2,300 over 94 s is 24.5 a second, not the 85 or 55 either spell was sent at.
    const spells = new PenaltySpells(0);
    expect(spells.onPenalty(14_000, 14_100, 60_000, 1200)).toBeUndefined();
    expect(spells.onPenalty(94_000, 94_100, 60_000, 2300)).toBeCloseTo(2300 / 94, 5);
  });

  it('reads nothing where the spell after the block accepted more than the one before it', () => {
    // A second's window refuses the rate, whatever was counted: 17 in half a second, then 200.
    const spells = new PenaltySpells(0);
    spells.onPenalty(460, 500, 120_000, 17);
    expect(spells.onPenalty(132_000, 132_050, 120_000, 217)).toBeUndefined();
  });

  it('takes the refusals of requests sent before the pause ended as the same penalty', () => {
    const spells = new PenaltySpells(0);
    spells.onPenalty(10_000, 10_050, 30_000, 100);
    // Sent before the refusal came back, refused by the same block: no spell, no reading.
    expect(spells.onPenalty(10_020, 10_070, 30_000, 100)).toBeUndefined();
    expect(spells.onPenalty(50_000, 50_050, 30_000, 190)).toBeCloseTo(190 / 50, 5);
  });

  it('reads nothing from a spell shorter than a second', () => {
    const spells = new PenaltySpells(0);
    spells.onPenalty(5_000, 5_050, 10_000, 50);
    expect(spells.onPenalty(15_800, 15_850, 10_000, 90)).toBeUndefined();
  });
});
