import { describe, expect, it } from 'vitest';
import { OverloadFilter, type RatePhase } from '../../src/controller/overload-filter.js';
import type { Signal } from '../../src/signal.js';

const bare503: Signal = { kind: 'overloaded', reason: '503' };
const ok: Signal = { kind: 'ok', reason: '200' };
const with429: Signal = { kind: 'throttled', reason: '429' };

describe('OverloadFilter', () => {
  it('passes an isolated bare 503 on as a server error (noise holds the speed)', () => {
    const filter = new OverloadFilter();
    for (let i = 0; i < 20; i++) filter.judge(ok);
    expect(filter.judge(bare503).kind).toBe('server-error');
  });

  it('a 503 with a Retry-After is a refusal', () => {
    expect(new OverloadFilter().judge({ ...bare503, retryAfterMs: 1000 }).kind).toBe('throttled');
  });

  it("a bare 503 while the rate probes is the probe's refusal, on a scope that refuses no other way", () => {
    const filter = new OverloadFilter();
    for (let i = 0; i < 20; i++) filter.judge(ok);
    expect(filter.judge(bare503, 'probing').kind).toBe('throttled');
  });

  it('a bare 503 while probing stays noise on a scope that refuses with 429s', () => {
    const filter = new OverloadFilter();
    filter.judge(with429);
    for (let i = 0; i < 20; i++) filter.judge(ok);
    expect(filter.judge(bare503, 'probing').kind).toBe('server-error');
  });

  it('bare 5xx surging to a fifth of recent outcomes are an overload', () => {
    const filter = new OverloadFilter();
    const kinds = Array.from({ length: 8 }, () => filter.judge(bare503).kind);
    expect(kinds.at(-1)).toBe('overloaded');
  });
});

describe('OverloadFilter on bare 5xx that persist at a held rate', () => {
  /** Feeds `n` outcomes, one in ten a bare 503, and returns the kinds the bare ones were given. */
  const tenth = (filter: OverloadFilter, n: number, phase: RatePhase = 'held') =>
    Array.from({ length: n }, (_, i) => filter.judge(i % 10 === 9 ? bare503 : ok, phase))
      .filter((signal) => signal.kind !== 'ok')
      .map((signal) => signal.kind);

  it('tries one as a refusal, and takes the share for noise when the errors go on', () => {
    const filter = new OverloadFilter();
    const first = tenth(filter, 200);
    expect(first.filter((kind) => kind === 'throttled')).toHaveLength(1);
    // The errors did not fall after the trial: noise, never tried again at that share.
    expect(tenth(filter, 2000)).not.toContain('throttled');
  });

  it('tries again once the errors stopped after a trial and came back', () => {
    const filter = new OverloadFilter();
    let tried = false;
    for (let i = 0; !tried; i++) {
      tried = filter.judge(i % 10 === 9 ? bare503 : ok).kind === 'throttled';
    }
    for (let i = 0; i < 300; i++) filter.judge(ok);
    expect(tenth(filter, 300)).toContain('throttled');
  });

  it('counts no outcome of a slow start or a probe, nor on a scope refused with 429s', () => {
    const unpaced = new OverloadFilter();
    expect(tenth(unpaced, 500, 'unpaced')).not.toContain('throttled');
    const refusedOtherwise = new OverloadFilter();
    refusedOtherwise.judge(with429);
    expect(tenth(refusedOtherwise, 500)).not.toContain('throttled');
  });
});
