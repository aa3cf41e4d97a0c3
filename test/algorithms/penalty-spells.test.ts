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
  it('reads a remainder: the spell after a block refused for what the window still counted', () => {
    // A minute counted by a sliding counter behind a minute's block (field seed 12 #87, 2.8 a
    // second): 171 in 5 s, blocked; the block ends while the counter still weighs them, and the
    // spell after takes only the rest of the count (22 in 0.7 s) before the next block. The 171 over
    // their spell and the block after it (65 s) are what the window grants: 2.63 a second.
    const spells = new PenaltySpells(0);
    spells.onPenalty(4_712, 4_712, 60_000, 169);
    spells.onPenalty(69_751, 69_751, 60_000, 340);
    expect(spells.remainderRate).toBe(Number.POSITIVE_INFINITY);
    spells.onPenalty(130_455, 130_455, 60_000, 362, 34.1);
    expect(spells.remainderRate).toBeCloseTo(171 / (129.751 - 64.712), 5);
    // The refusals of that block's other sends read nothing more.
    spells.onPenalty(130_460, 130_470, 60_000, 362, 34.1);
    expect(spells.remainderRate).toBe(Number.POSITIVE_INFINITY);
  });

  it('reads no remainder from a spell sent faster than the one before it', () => {
    // 25 accepted over 7 s of a probe's climb, blocked; the next spell, at 11.5 a second, three
    // times as fast, refused after 7: a second's window refusing the rate (field seed 11 #93).
    const spells = new PenaltySpells(0);
    spells.onPenalty(400, 400, 61_000, 6);
    spells.onPenalty(68_500, 68_500, 61_000, 31, 13);
    spells.onPenalty(130_200, 130_200, 61_000, 38, 11.5);
    expect(spells.remainderRate).toBe(Number.POSITIVE_INFINITY);
  });

  it('reads no remainder after a spell as long as its block: that spell was a rate, not a count', () => {
    // 1,950 over 250 s at a second's rate, blocked 10 s; 13 in the next 1.4 s.
    const spells = new PenaltySpells(0);
    spells.onPenalty(400, 400, 10_000, 7);
    spells.onPenalty(261_700, 261_700, 10_000, 1958);
    spells.onPenalty(273_100, 273_100, 10_000, 1971, 8.5);
    expect(spells.remainderRate).toBe(Number.POSITIVE_INFINITY);
  });

  it('reads no remainder from a resume that accepted nothing: the server was still closed', () => {
    // A minute's window answering a constant 10 s (field seed 11 #100): 1,021 in 13.5 s, then each
    // resume refused at its first send, one accepted as another consumer's count aged out.
    const spells = new PenaltySpells(0);
    spells.onPenalty(13_520, 13_520, 10_000, 1021);
    spells.onPenalty(23_520, 23_520, 10_000, 1022, 74.9);
    spells.onPenalty(33_520, 33_520, 10_000, 1022, 74.9);
    expect(spells.remainderRate).toBe(Number.POSITIVE_INFINITY);
  });
});
