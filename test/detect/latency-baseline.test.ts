import { describe, expect, it } from 'vitest';
import { parseBaseline } from '../../src/detect/baseline-file.js';
import { BaselineCapture, checkAgainstBaseline } from '../../src/detect/latency-baseline.js';
import { InvalidOptionError } from '../../src/errors.js';
import { seededRandom } from '../../src/random.js';
import { jitter } from './traffic.js';

const random = seededRandom('baseline');
const window = (centre: number, n = 100): number[] =>
  Array.from({ length: n }, () => jitter(random, centre, 0.3));
const valid = {
  host: 'store.example.com',
  p50: 210,
  p95: 340,
  p99: 420,
  samples: 100,
  capturedAt: '2026-01-31T04:00:00.000Z',
};

describe('BaselineCapture', () => {
  it('keeps the window with the lowest p95, not the first or the average', () => {
    const capture = new BaselineCapture('store.example.com', { windowSize: 100 });
    // A pacing ramp starts after the second window; the second window is the floor.
    for (const centre of [300, 200, 450, 700]) for (const x of window(centre)) capture.add(x);
    const baseline = capture.toBaseline(Date.UTC(2026, 0, 31, 4));
    expect(baseline?.host).toBe('store.example.com');
    expect(baseline?.samples).toBe(100);
    expect(baseline?.p95).toBeGreaterThan(200);
    expect(baseline?.p95).toBeLessThan(260); // 200 ms ± 30 %: p95 ≈ 248
    expect(baseline?.p50).toBeLessThan(baseline?.p95 ?? 0);
    expect(baseline?.capturedAt).toBe('2026-01-31T04:00:00.000Z');
    expect(parseBaseline(JSON.stringify(baseline))).toEqual({ ok: true, baseline });
  });

  it('uses an incomplete window only when no window is complete, and ignores junk', () => {
    const capture = new BaselineCapture('h', { windowSize: 100 });
    expect(capture.toBaseline(0)).toBeUndefined();
    for (const x of [Number.NaN, -5, Infinity, 10, 20, 30]) capture.add(x);
    expect(capture.fastest).toEqual({ p50: 20, p95: 30, p99: 30, samples: 3 });
    for (const x of window(500)) capture.add(x);
    expect(capture.fastest?.samples).toBe(100);
  });

  it('rejects a bad host, window size or capture time', () => {
    expect(() => new BaselineCapture('')).toThrow(/`host` must be a non-empty string/);
    expect(() => new BaselineCapture('h', { windowSize: 0 })).toThrow(/windowSize/);
    expect(() => new BaselineCapture('h').toBaseline(Number.NaN)).toThrow(InvalidOptionError);
  });
});

describe('checkAgainstBaseline', () => {
  it('applies the 2× p95 rule', () => {
    const fine = checkAgainstBaseline(window(400), valid); // p95 ≈ 500 < 680
    expect(fine.verdict).toBe('ok');
    expect(fine.ratio).toBeCloseTo(fine.liveP95 / 340, 10);
    const slow = checkAgainstBaseline(window(1000), valid); // p95 ≈ 1250 > 680
    expect(slow.verdict).toBe('slow');
    expect(slow.ratio).toBeGreaterThan(2);
    expect(checkAgainstBaseline(window(1000), valid, { threshold: 4 }).verdict).toBe('ok');
  });

  it('says when there is too little data, and validates baseline and options', () => {
    expect(checkAgainstBaseline([5000, 6000], valid)).toMatchObject({
      verdict: 'insufficient-data',
      samples: 2,
    });
    expect(checkAgainstBaseline([], valid)).toMatchObject({ liveP95: 0, ratio: 0 });
    expect(() => checkAgainstBaseline([], { ...valid, p95: 0 })).toThrow(/"p95" must be/);
    expect(() => checkAgainstBaseline([], valid, { threshold: 0.5 })).toThrow(/threshold/);
  });
});

describe('parseBaseline', () => {
  it('accepts a valid file and returns a clean copy', () => {
    expect(parseBaseline(JSON.stringify(valid))).toEqual({ ok: true, baseline: valid });
    expect(parseBaseline(valid)).toEqual({ ok: true, baseline: valid });
  });

  it.each([
    ['{"host": ', /not valid JSON/],
    ['[]', /expected a JSON object, got an array/],
    ['null', /expected a JSON object, got null/],
    [
      JSON.stringify({ ...valid, host: '' }),
      /"host" must be a non-empty string, got "" \(string\)/,
    ],
    [
      JSON.stringify({ ...valid, p95: '340' }),
      /"p95" must be a finite number of ms > 0, got "340"/,
    ],
    [JSON.stringify({ ...valid, p50: 500 }), /p50 <= p95 <= p99, got 500, 340, 420/],
    [JSON.stringify({ ...valid, samples: 1.5 }), /"samples" must be an integer >= 1, got 1.5/],
    [JSON.stringify({ ...valid, capturedAt: 'yesterday' }), /"capturedAt" must be an ISO 8601/],
    [JSON.stringify({ ...valid, p59: 1 }), /unknown field "p59"/],
  ])('reports %s as a message', (text, message) => {
    const result = parseBaseline(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(message);
  });

  it('lists every problem at once', () => {
    const result = parseBaseline({ host: 1, p50: 1, p95: 2, p99: 3 });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toMatch(/"host".*"samples".*"capturedAt"/);
    }
  });
});
