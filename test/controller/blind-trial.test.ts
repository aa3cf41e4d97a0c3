import { describe, expect, it } from 'vitest';
import { opensBlindTrial } from '../../src/controller/blind-trial.js';
import { sample } from '../algorithms/samples.js';

const refused = (inflight: number, retryAfterMs?: number) =>
  sample({
    at: 30,
    sentAt: 0,
    kind: 'throttled',
    inflight,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });

describe('opensBlindTrial', () => {
  it('opens a cap on trial from a refusal at four in flight or more that asked a second at most', () => {
    expect(opensBlindTrial(refused(4))).toBe(true);
    expect(opensBlindTrial(refused(6, 1000))).toBe(true);
    expect(opensBlindTrial(refused(3))).toBe(false);
    expect(opensBlindTrial(refused(4, 2000))).toBe(false);
  });
});
