import { describe, expect, it } from 'vitest';
import { RefutedRaise } from '../../src/algorithms/refuted-raise.js';

describe('RefutedRaise', () => {
  it('believes every reading until the held rate refutes a raise', () => {
    const raises = new RefutedRaise();
    expect(raises.believes(29.1, 31.1)).toBe(true);
    raises.raised(29.1, 31.1, 40_000);
    expect(raises.believes(30, 31.3)).toBe(true);
  });

  it('after a refuted raise, a probe from the same ceiling reading no higher finds the ceiling where it was', () => {
    const raises = new RefutedRaise();
    raises.raised(29.1, 31.1, 40_000);
    raises.heldRefused(42_000);
    expect(raises.believes(30, 31.3)).toBe(false);
    expect(raises.believes(30, 33)).toBe(true); // above the refuted reading by more than 5 %
    expect(raises.believes(20, 31)).toBe(true); // from a ceiling that fell since: the capacity moved
    expect(raises.believes(30, 29.5)).toBe(true); // no raise at all
  });

  it('a refusal of the held rate long after the raise does not refute it', () => {
    const raises = new RefutedRaise();
    raises.raised(29.1, 31.1, 40_000);
    raises.heldRefused(60_000);
    expect(raises.believes(30, 31.3)).toBe(true);
  });

  it('a raise within 5 % is no raise on trial', () => {
    const raises = new RefutedRaise();
    raises.raised(30, 31, 40_000);
    raises.heldRefused(41_000);
    expect(raises.believes(30, 31.3)).toBe(true);
  });

  it('a later raise replaces the one on trial; only the refuted one counts', () => {
    const raises = new RefutedRaise();
    raises.raised(29.1, 31.1, 40_000);
    raises.heldRefused(42_000);
    raises.raised(30, 40, 80_000); // the capacity rose: believed, on trial
    expect(raises.believes(30, 31.3)).toBe(false); // the refuted raise still stands
    raises.heldRefused(82_000);
    expect(raises.believes(30, 41)).toBe(false);
    expect(raises.believes(30, 43)).toBe(true);
  });
});
