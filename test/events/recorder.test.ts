import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventRecorder } from '../../src/events/recorder.js';
import { makeEvent } from './fixtures.js';

describe('EventRecorder', () => {
  it('keeps every event in order when unbounded, and filters by type', () => {
    const recorder = new EventRecorder();
    const types = ['sample', 'limit', 'sample', 'rate', 'limit'] as const;
    for (const [i, type] of types.entries()) recorder.sink(makeEvent(i, type));
    expect(recorder.size).toBe(5);
    expect(recorder.capacity).toBe(Infinity);
    expect(recorder.events.map((e) => e.t)).toEqual([0, 10, 20, 30, 40]);
    expect(recorder.filter('limit').map((e) => e.t)).toEqual([10, 40]);
    expect(recorder.filter('breaker')).toEqual([]);
    expect(recorder.dropped).toBe(0);
  });

  it('as a ring keeps the newest `capacity` events, oldest first, and counts the dropped', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 100 }), (cap, n) => {
        const recorder = new EventRecorder({ capacity: cap });
        for (let i = 0; i < n; i++) recorder.record(makeEvent(i));
        const expected = Array.from({ length: n }, (_, i) => i * 10).slice(Math.max(0, n - cap));
        expect(recorder.events.map((e) => e.t)).toEqual(expected);
        expect(recorder.size).toBe(Math.min(n, cap));
        expect(recorder.dropped).toBe(Math.max(0, n - cap));
      }),
    );
  });

  it('returns snapshots, and clear() empties it', () => {
    const recorder = new EventRecorder({ capacity: 2 });
    recorder.record(makeEvent(1));
    const snapshot = recorder.events;
    recorder.record(makeEvent(2));
    recorder.record(makeEvent(3));
    expect(snapshot.map((e) => e.t)).toEqual([10]);
    recorder.clear();
    expect(recorder.events).toEqual([]);
    expect(recorder.dropped).toBe(0);
    recorder.record(makeEvent(4));
    expect(recorder.events.map((e) => e.t)).toEqual([40]);
  });

  it('rejects bad options with a message naming option and value', () => {
    expect(() => new EventRecorder({ capacity: 0 })).toThrow(
      /`capacity` must be an integer >= 1.*got 0/,
    );
    expect(() => new EventRecorder({ capacity: 1.5 })).toThrow(/capacity/);
    expect(() => new EventRecorder({ capacty: 3 } as never)).toThrow(/unknown option `capacty`/);
  });
});
