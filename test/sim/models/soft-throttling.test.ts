import { describe, expect, it } from 'vitest';
import { ByteDripModel } from '../../../src/sim/models/byte-drip.js';
import { EscalationModel } from '../../../src/sim/models/escalation.js';
import { QueueTimeoutModel } from '../../../src/sim/models/queue-timeout.js';
import { TarpitModel } from '../../../src/sim/models/tarpit.js';
import { arriveAll, countStatuses, evenly, requests } from './arrivals.js';

describe('TarpitModel', () => {
  it('holds requests over the client rate before the first byte, still 200', () => {
    const model = new TarpitModel({ rate: 5, delayMs: 1500, latencyMs: 100 });
    const replies = arriveAll(model, evenly(8, 0, 10));
    expect(replies.map((r) => r.ttfbMs)).toEqual([100, 100, 100, 100, 100, 1600, 1600, 1600]);
    expect(countStatuses(replies)).toEqual({ 200: 8 });
    const next = requests();
    expect(model.arrive(next(2000)).ttfbMs).toBe(100); // the window passed: fast again
    expect(model.arrive(next(2000, 'other')).ttfbMs).toBe(100);
    expect(model.capacity()).toBe(5);
  });

  it('tarpits everything with rate 0', () => {
    const replies = arriveAll(new TarpitModel({ rate: 0, latencyMs: 0 }), [0, 5000]);
    expect(replies.map((r) => r.ttfbMs)).toEqual([1500, 1500]);
  });
});

describe('ByteDripModel', () => {
  it('answers fast but drips the body of requests over the client rate', () => {
    const model = new ByteDripModel({ rate: 1, bodyBytes: 8192, bytesPerSecond: 2048 });
    const [within, over] = arriveAll(model, [0, 10]);
    expect(within).toMatchObject({ status: 200, ttfbMs: 150, bodyBytes: 8192, bodyMs: 0 });
    expect(over).toMatchObject({ status: 200, ttfbMs: 150, bodyBytes: 8192, bodyMs: 4000 });
    expect(over?.body).toBeUndefined();
  });
});

describe('QueueTimeoutModel', () => {
  it('is bimodal: idle worker → service time, all busy → held until the queue timeout', () => {
    const model = new QueueTimeoutModel({ workers: 2, latencyMs: 100, holdMs: 2000 });
    const replies = arriveAll(model, [0, 10, 20, 50, 100, 111]);
    expect(replies.map((r) => r.ttfbMs)).toEqual([100, 100, 2000, 2000, 100, 100]);
    expect(countStatuses(replies)).toEqual({ 200: 6 });
    expect(model.capacity()).toBe(20);
  });

  it('can release held requests with an error status', () => {
    const model = new QueueTimeoutModel({ workers: 1, heldStatus: 504 });
    expect(arriveAll(model, [0, 1]).map((r) => r.status)).toEqual([200, 504]);
  });
});

describe('the client-rate models (tarpit, byte-drip, escalation)', () => {
  it('give their free rate per client as capacity, none when every request is penalised', () => {
    const models = (rate: number) => [
      new TarpitModel({ rate }),
      new ByteDripModel({ rate }),
      new EscalationModel({ rate }),
    ];
    for (const model of models(7)) expect(model.capacity()).toBe(7);
    for (const model of models(0)) expect(model.capacity()).toBeUndefined();
  });
});
