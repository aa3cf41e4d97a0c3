import { describe, expect, it } from 'vitest';
import { OverloadFilter } from '../../src/controller/overload-filter.js';
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
    expect(filter.judge(bare503, true).kind).toBe('throttled');
  });

  it('a bare 503 while probing stays noise on a scope that refuses with 429s', () => {
    const filter = new OverloadFilter();
    filter.judge(with429);
    for (let i = 0; i < 20; i++) filter.judge(ok);
    expect(filter.judge(bare503, true).kind).toBe('server-error');
  });

  it('bare 5xx surging to a fifth of recent outcomes are an overload', () => {
    const filter = new OverloadFilter();
    const kinds = Array.from({ length: 8 }, () => filter.judge(bare503).kind);
    expect(kinds.at(-1)).toBe('overloaded');
  });
});
