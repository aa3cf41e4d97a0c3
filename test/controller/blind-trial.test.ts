import { describe, expect, it } from 'vitest';
import { blindTrialCount } from '../../src/controller/blind-trial.js';
import { sample } from '../algorithms/samples.js';

const refused = (inflight: number, retryAfterMs?: number, outstanding?: number) =>
  sample({
    at: 30,
    sentAt: 0,
    kind: 'throttled',
    inflight,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(outstanding === undefined ? {} : { outstanding }),
  });

describe('blindTrialCount', () => {
  it('opens a cap on trial from a refusal at four in flight or more that asked a second at most', () => {
    expect(blindTrialCount(refused(4))).toBe(4);
    expect(blindTrialCount(refused(6, 1000))).toBe(6);
    expect(blindTrialCount(refused(3))).toBeUndefined();
    expect(blindTrialCount(refused(4, 2000))).toBeUndefined();
  });

  it('counts a refusal of the opening burst as the burst, up to four, whichever of it the server refused', () => {
    // Four sent at once, the one counted second reached the server last: it met the other three.
    expect(blindTrialCount(refused(2, undefined, 3))).toBe(4);
    expect(blindTrialCount(refused(1, 1000, 15))).toBe(4);
    expect(blindTrialCount(refused(2, undefined, 1))).toBeUndefined();
    expect(blindTrialCount(refused(2, 2000, 3))).toBeUndefined();
  });
});
