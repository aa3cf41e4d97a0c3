import { describe, expect, it } from 'vitest';
import { FreeProbeAftermath, namesNoPause } from '../../src/algorithms/free-probe.js';
import { sample } from './samples.js';

const refusal = (sentAt: number) => sample({ sentAt, at: sentAt + 1, kind: 'throttled' });

describe('FreeProbeAftermath', () => {
  it('claims the first refusal of the three sends after a probe refused at the held rate, once', () => {
    const aftermath = new FreeProbeAftermath();
    aftermath.open(1000, 2000, 10); // three sends at 10 req/s: 300 ms
    expect(aftermath.claims(refusal(1000))).toBe(false); // sent before the probe's refusal came
    expect(aftermath.claims(refusal(1250))).toBe(true);
    expect(aftermath.claims(refusal(1260))).toBe(false); // the first ends it
    aftermath.open(5000, 2000, 10);
    expect(aftermath.claims(refusal(5301))).toBe(false); // a fourth send: the rate held
  });

  it('lasts no longer than the meter window at a slow rate, nothing when unpaced, and ends on close', () => {
    const aftermath = new FreeProbeAftermath();
    aftermath.open(0, 2000, 0.5); // three sends would take 6 s
    expect(aftermath.claims(refusal(2001))).toBe(false);
    aftermath.open(0, 2000, Infinity);
    expect(aftermath.claims(refusal(0.5))).toBe(false);
    aftermath.open(0, 2000, 10);
    aftermath.close();
    expect(aftermath.claims(refusal(100))).toBe(false);
  });

  it('takes no Retry-After and Retry-After: 0 as naming no pause, but not a bare 5xx', () => {
    expect(namesNoPause(refusal(0))).toBe(true);
    expect(namesNoPause(sample({ at: 1, kind: 'throttled', retryAfterMs: 0 }))).toBe(true);
    expect(namesNoPause(sample({ at: 1, kind: 'throttled', retryAfterMs: 1000 }))).toBe(false);
    const bare503 = sample({ at: 1, kind: 'throttled' });
    bare503.signal.status = 503;
    expect(namesNoPause(bare503)).toBe(false);
    bare503.signal.retryAfterMs = 0;
    expect(namesNoPause(bare503)).toBe(true);
  });
});
