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
  it('reads the count met before a remainder: a window still weighing the spell before the block', () => {
    // A minute counted by a sliding counter behind a minute's block (field seed 12 #87: 2.8 a
    // second): the block ends while the counter still weighs the spell before it, so the spell
    // after takes only the rest of the count (22 of 171, in 0.7 s) and is blocked again; the next
    // accepts the whole count again (155), far more than the remainder before it. That is the
    // count met before the remainder: read over the remainder, the block and the spell,
    // 177 over 70 s (2.53 a second), where main read nothing.
    const spells = new PenaltySpells(0);
    spells.onPenalty(4_712, 4_712, 60_000, 169);
    spells.onPenalty(69_751, 69_751, 60_000, 340);
    expect(spells.onPenalty(130_455, 130_455, 60_000, 362)).toBeUndefined();
    expect(spells.onPenalty(199_748, 199_748, 60_000, 517)).toBeCloseTo(
      177 / (199.748 - 129.751),
      5,
    );
  });

  it('still reads nothing where a spell accepted more than the count met before it', () => {
    // 200, then a remainder of 20 (the count met stays 200), then 400: a rate over a short window.
    const spells = new PenaltySpells(0);
    spells.onPenalty(5_000, 5_000, 30_000, 200);
    spells.onPenalty(36_000, 36_000, 30_000, 220);
    expect(spells.onPenalty(70_000, 70_000, 30_000, 620)).toBeUndefined();
  });
});
