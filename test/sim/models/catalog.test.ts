import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../../src/errors.js';
import { seededRandom } from '../../../src/random.js';
import { createModel, MODEL_NAMES, parseModelParams } from '../../../src/sim/models/catalog.js';
import { MODEL_CATALOG } from '../../../src/sim/models/catalog-entries.js';
import { arriveAll, countStatuses, evenly } from './arrivals.js';

describe('model catalog', () => {
  it('builds every named model with its defaults, under its own name', () => {
    for (const name of MODEL_NAMES) {
      const model = createModel(name);
      expect(model.name).toBe(name);
      expect(arriveAll(model, [0])[0]?.status).toBe(200);
    }
    expect(MODEL_NAMES).toContain('fixed-window');
    expect(new Set(MODEL_NAMES).size).toBe(MODEL_CATALOG.length);
  });

  it('describes every parameter, and every parameter is an option the model accepts', () => {
    for (const entry of MODEL_CATALOG) {
      expect(entry.description.length).toBeGreaterThan(10);
      for (const param of entry.params) {
        expect(param.description.length).toBeGreaterThan(3);
        // A value of the wrong range may be refused, but the option itself must be known.
        const value = param.kind === 'choice' ? (param.choices?.[0] as string) : 'not-a-number';
        expect(() => createModel(entry.name, { [param.name]: value })).not.toThrow(/unknown/);
        if (param.kind === 'choice')
          expect(createModel(entry.name, { [param.name]: value })).toBeTruthy();
      }
    }
  });

  it('reads text parameters: numbers, Infinity, rate schedules and choices', () => {
    const params = parseModelParams(['rate=30,10@1000', 'latencyMs=0', 'retryAfter=http-date']);
    const model = createModel('fixed-window', params);
    expect(countStatuses(arriveAll(model, evenly(50, 0, 1)))).toEqual({ 200: 30, 429: 20 });
    expect(countStatuses(arriveAll(model, evenly(50, 2000, 1)))).toEqual({ 200: 10, 429: 40 });
    expect(createModel('block', { blockMs: 'Infinity', threshold: '1' }).name).toBe('block');
    expect(createModel('decaying-ramp').name).toBe('decaying-ramp');
  });

  it('layers models with + and aims prefixed parameters at one layer', () => {
    const model = createModel('fixed-window+ramp', {
      'fixed-window.latencyMs': '0',
      'ramp.latencyMs': '100',
      rate: '2',
    });
    expect(model.name).toBe('fixed-window+ramp');
    expect(arriveAll(model, [0, 1, 2]).map((r) => [r.status, r.ttfbMs])).toEqual([
      [200, 100],
      [200, 100],
      [429, 0],
    ]);
  });

  it('passes the random on, so jitter is reproducible by seed', () => {
    const run = () =>
      arriveAll(createModel('healthy', { jitterMs: 100 }, seededRandom(3)), [0, 1]).map(
        (r) => r.ttfbMs,
      );
    expect(run()).toEqual(run());
  });

  it('reports unknown models, unknown parameters and bad values clearly', () => {
    expect(() => createModel('nope')).toThrow(/`model` must be one of healthy, fixed-window/);
    expect(() => createModel('healthy', { rate: 3 })).toThrow(
      /unknown option `rate` \(known options: latencyMs, jitterMs\)/,
    );
    expect(() => createModel('fixed-window+ramp', { 'ramp.rate': 3 })).toThrow(InvalidOptionError);
    expect(() => createModel('fixed-window', { rate: 'fast' })).toThrow(/`rate`.*"fast"/);
    expect(() => createModel('fixed-window', { latencyMs: '-5' })).toThrow(/`latencyMs`.*-5/);
    expect(() => parseModelParams(['latency'])).toThrow(/key=value/);
  });
});
