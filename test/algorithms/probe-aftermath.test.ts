import { describe, expect, it } from 'vitest';
import { inAftermath, RefusedProbeMemory } from '../../src/algorithms/probe-aftermath.js';

/** A refusal at `current` req/s, `at` ms, with a 1 s meter window and the given Retry-After. */
const refusal = (at: number, current: number, retryAfterMs?: number) => ({
  at,
  current,
  windowMs: 1000,
  retryAfterMs,
});

describe('inAftermath', () => {
  it('takes a refusal above the rate held before the probe, within 10 s, as its aftermath', () => {
    expect(inAftermath(refusal(9_000, 50), 0, 40)).toBe(true);
    expect(inAftermath(refusal(11_000, 50), 0, 40)).toBe(false);
  });

  it('takes a refusal at or below the rate held before as the server’s doing', () => {
    expect(inAftermath(refusal(1_000, 40), 0, 40)).toBe(false);
  });

  it('stretches the span to three meter windows when they are longer than 10 s', () => {
    expect(inAftermath({ ...refusal(25_000, 50), windowMs: 10_000 }, 0, 40)).toBe(true);
  });
});

describe('RefusedProbeMemory', () => {
  it('knows nothing before a probe is refused', () => {
    expect(new RefusedProbeMemory().heldBefore(refusal(1_000, 50, 2_000))).toBeUndefined();
  });

  it('gives the rate held before the probe when its aftermath asks for the same long pause', () => {
    const memory = new RefusedProbeMemory();
    memory.remember(refusal(0, 60, 2_000), 40);
    expect(memory.heldBefore(refusal(3_000, 50, 2_000))).toBe(40);
  });

  it('gives nothing for a different pause, a short one, or no Retry-After', () => {
    const memory = new RefusedProbeMemory();
    memory.remember(refusal(0, 60, 2_000), 40);
    expect(memory.heldBefore(refusal(3_000, 50, 3_000))).toBeUndefined();
    expect(memory.heldBefore(refusal(3_000, 50))).toBeUndefined();
    const short = new RefusedProbeMemory();
    short.remember(refusal(0, 60, 1_000), 40);
    expect(short.heldBefore(refusal(3_000, 50, 1_000))).toBeUndefined();
  });

  it('gives nothing once the aftermath is over', () => {
    const memory = new RefusedProbeMemory();
    memory.remember(refusal(0, 60, 2_000), 40);
    expect(memory.heldBefore(refusal(12_000, 50, 2_000))).toBeUndefined();
  });

  /** Where the aftermath of a probe refused at 60 req/s (Retry-After: 2) returns to, refused at `current` 3 s later. */
  const returnTo = (heldBefore: number, current: number, read?: number) => {
    const memory = new RefusedProbeMemory();
    memory.remember(
      { ...refusal(0, 60, 2_000), ...(read === undefined ? {} : { read }) },
      heldBefore,
    );
    return memory.returnTo(refusal(3_000, current, 2_000));
  };

  it('returns to what the probe’s refusal read when that is below the rate refused in its aftermath', () => {
    expect(returnTo(40, 50, 48)).toBe(48);
  });

  it('halves the gap to the rate held before the probe when that is higher, or nothing was read', () => {
    expect(returnTo(40, 50, 44)).toBe(45);
    expect(returnTo(40, 50, 52)).toBe(45);
    expect(returnTo(40, 50)).toBe(45);
  });

  it('halves the gap when the probe’s refusal read fewer than 20 sends a window', () => {
    expect(returnTo(10, 16, 15)).toBe(13);
  });

  it('returns nowhere outside the aftermath of a constant pause', () => {
    const memory = new RefusedProbeMemory();
    memory.remember({ ...refusal(0, 60, 2_000), read: 48 }, 40);
    expect(memory.returnTo(refusal(3_000, 50, 3_000))).toBeUndefined();
    expect(memory.returnTo(refusal(12_000, 50, 2_000))).toBeUndefined();
  });
});

describe('RefusedProbeMemory.firstInAftermath', () => {
  it('is true once per refused probe, for the first refusal of the rate its reading set', () => {
    const memory = new RefusedProbeMemory();
    memory.remember(refusal(0, 60), 40);
    expect(memory.firstInAftermath(refusal(6_000, 45))).toBe(true);
    expect(memory.firstInAftermath(refusal(8_000, 43))).toBe(false);
    memory.remember(refusal(20_000, 60), 41);
    expect(memory.firstInAftermath(refusal(26_000, 45))).toBe(true);
  });

  it('is false outside the aftermath, at or below the rate held before, and before any probe', () => {
    expect(new RefusedProbeMemory().firstInAftermath(refusal(1_000, 45))).toBe(false);
    const memory = new RefusedProbeMemory();
    memory.remember(refusal(0, 60), 40);
    expect(memory.firstInAftermath(refusal(3_000, 40))).toBe(false);
    expect(memory.firstInAftermath(refusal(12_000, 45))).toBe(false);
  });
});
