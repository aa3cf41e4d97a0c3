import { describe, expect, it } from 'vitest';
import { RefutedRaise } from '../../src/algorithms/refuted-raise.js';

describe('RefutedRaise', () => {
  it('takes every reading as it is until the held rate refutes a raise', () => {
    const raises = new RefutedRaise();
    expect(raises.worth(31.1)).toBe(31.1);
    raises.raised(29.1, 31.1, 40_000);
    expect(raises.worth(31.3)).toBe(31.3);
  });

  it('after a refuted raise, a reading no higher is worth what the held rate’s refusal read', () => {
    const raises = new RefutedRaise();
    raises.raised(29.1, 31.1, 40_000);
    raises.heldRefused(42_000, 29.9);
    expect(raises.worth(31.3)).toBe(29.9);
    expect(raises.worth(32.6)).toBe(29.9); // within 5 % of the refuted reading
    expect(raises.worth(29.5)).toBe(29.5); // lower still: as read
    expect(raises.worth(33)).toBe(33); // above it by more than 5 %: the capacity rose
  });

  it('a cut to far under the raise (its floor, a grant read over a pause) refutes nothing', () => {
    const raises = new RefutedRaise();
    raises.raised(29.1, 31.1, 40_000);
    raises.heldRefused(42_000, 15);
    expect(raises.worth(31.3)).toBe(31.3);
  });

  it('a refusal of the held rate long after the raise does not refute it', () => {
    const raises = new RefutedRaise();
    raises.raised(29.1, 31.1, 40_000);
    raises.heldRefused(60_000, 29.9);
    expect(raises.worth(31.3)).toBe(31.3);
  });

  it('a raise within 5 % is no raise on trial, and a cut that reads higher refutes nothing', () => {
    const raises = new RefutedRaise();
    raises.raised(30, 31, 40_000);
    raises.heldRefused(41_000, 29.9);
    expect(raises.worth(31)).toBe(31);
    raises.raised(29.1, 31.1, 50_000);
    raises.heldRefused(51_000, 31.5);
    expect(raises.worth(31)).toBe(31);
  });

  it('the latest refuted raise is the one that counts', () => {
    const raises = new RefutedRaise();
    raises.raised(29.1, 31.1, 40_000);
    raises.heldRefused(42_000, 29.9);
    raises.raised(30, 40, 80_000); // the capacity rose: believed, on trial
    expect(raises.worth(31.3)).toBe(29.9); // the refuted raise still stands
    raises.heldRefused(82_000, 38);
    expect(raises.worth(41)).toBe(38);
    expect(raises.worth(31.3)).toBe(31.3);
  });
});
