import { describe, expect, it } from 'vitest';
import { BlockModel } from '../../../src/sim/models/block.js';
import { CAPTCHA_MARKER } from '../../../src/sim/models/block-page.js';
import { EscalationModel } from '../../../src/sim/models/escalation.js';
import { arriveAll, evenly, requests } from './arrivals.js';

describe('BlockModel', () => {
  it('serves a client threshold requests, then answers a 403 captcha page for good', () => {
    const model = new BlockModel({ threshold: 3 });
    const replies = arriveAll(model, evenly(6, 0, 1000));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 403, 403, 403]);
    const page = replies[3];
    expect(page?.headers['content-type']).toMatch(/^text\/html/);
    expect(page?.body).toContain(CAPTCHA_MARKER);
    expect(page?.bodyBytes).toBe(new TextEncoder().encode(page?.body).length);
    const next = requests();
    expect(model.arrive(next(10_000, 'new-session')).status).toBe(200);
  });

  it('lifts a timed block and starts the client afresh', () => {
    const model = new BlockModel({ threshold: 1, blockMs: 5000 });
    const replies = arriveAll(model, [0, 100, 4000, 5100, 5200]);
    expect(replies.map((r) => r.status)).toEqual([200, 403, 403, 200, 403]);
  });
});

describe('EscalationModel', () => {
  it('escalates over-rate requests: delays, then 429s, then a block page', () => {
    const model = new EscalationModel({
      rate: 1,
      softStrikes: 2,
      blockStrikes: 4,
      delayMs: 1000,
      latencyMs: 100,
    });
    const replies = arriveAll(model, evenly(7, 0, 10));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 429, 429, 403, 403]);
    expect(replies.slice(0, 3).map((r) => r.ttfbMs)).toEqual([100, 1100, 1100]);
    expect(replies[3]?.headers['retry-after']).toBe('1');
    expect(replies[5]?.body).toContain(CAPTCHA_MARKER);
    // Blocked for good, even when slow now; another client is unaffected.
    const next = requests();
    expect(model.arrive(next(60_000)).status).toBe(403);
    expect(model.arrive(next(60_000, 'b')).status).toBe(200);
  });

  it('serves clients within the rate normally and forgets old strikes', () => {
    const model = new EscalationModel({ rate: 1, softStrikes: 1, blockStrikes: 1, memoryMs: 5000 });
    const polite = arriveAll(model, evenly(20, 0, 1000));
    expect(polite.every((r) => r.status === 200 && r.ttfbMs === 200)).toBe(true);
    const replies = arriveAll(model, [30_000, 30_001, 40_000, 40_001]);
    // One strike each time, remembered only 5 s: the soft stage both times.
    expect(replies.map((r) => r.ttfbMs)).toEqual([200, 1200, 200, 1200]);
  });

  it('rejects blockStrikes below softStrikes', () => {
    expect(() => new EscalationModel({ softStrikes: 10, blockStrikes: 5 })).toThrow(
      /`blockStrikes` must be an integer >= 10, got 5/,
    );
  });
});
