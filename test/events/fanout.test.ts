import { describe, expect, it } from 'vitest';
import type { ControlEvent, EventSink } from '../../src/events/event.js';
import { fanout } from '../../src/events/fanout.js';
import { EventRecorder } from '../../src/events/recorder.js';
import { makeEvent } from './fixtures.js';

function throwing(message: string): EventSink {
  return () => {
    throw new Error(message);
  };
}

describe('fanout', () => {
  it('hands every event to every sink, in order', () => {
    const a = new EventRecorder();
    const b = new EventRecorder();
    const sink = fanout([a.sink, b.sink]);
    for (let i = 0; i < 3; i++) sink(makeEvent(i));
    expect(a.events).toEqual([makeEvent(0), makeEvent(1), makeEvent(2)]);
    expect(b.events).toEqual(a.events);
  });

  it('keeps delivering when a sink throws, and reports each failing sink once', () => {
    const before = new EventRecorder();
    const after = new EventRecorder();
    const bad1 = throwing('first');
    const bad2 = throwing('second');
    const reported: [string, EventSink][] = [];
    const sink = fanout([before.sink, bad1, bad2, after.sink], {
      onError: (error, failed) => reported.push([(error as Error).message, failed]),
    });
    for (let i = 0; i < 5; i++) sink(makeEvent(i));
    expect(before.size).toBe(5);
    expect(after.size).toBe(5);
    expect(reported).toEqual([
      ['first', bad1],
      ['second', bad2],
    ]);
  });

  it('survives a throwing onError', () => {
    const kept = new EventRecorder();
    const sink = fanout([throwing('x'), kept.sink], {
      onError: () => {
        throw new Error('handler broke');
      },
    });
    sink(makeEvent(1));
    sink(makeEvent(2));
    expect(kept.size).toBe(2);
  });

  it('flushes and closes every buffered sink and rejects with the first failure', async () => {
    const calls: string[] = [];
    const buffered = (name: string, fail: boolean): EventSink =>
      Object.assign((_event: ControlEvent) => {}, {
        flush: async () => {
          calls.push(`${name}.flush`);
        },
        close: async () => {
          calls.push(`${name}.close`);
          if (fail) throw new Error(`${name} close failed`);
        },
      });
    const plain = new EventRecorder();
    const reported: unknown[] = [];
    const sink = fanout([buffered('a', false), plain.sink, buffered('b', true)], {
      onError: (error) => reported.push(error),
    });
    await sink.flush();
    expect(calls).toEqual(['a.flush', 'b.flush']);
    await expect(sink.close()).rejects.toThrow('b close failed');
    expect(calls).toEqual(['a.flush', 'b.flush', 'a.close', 'b.close']);
    expect(reported).toHaveLength(1);
  });

  it('rejects what is not a list of sinks, and unknown options', () => {
    expect(() => fanout('sink' as never)).toThrow(/`sinks` must be an array of sink functions/);
    expect(() => fanout([{} as never])).toThrow(/`sinks`/);
    expect(() => fanout([], { onError: 1 as never })).toThrow(/`onError` must be a function/);
    expect(() => fanout([], { onErr: () => {} } as never)).toThrow(/unknown option `onErr`/);
  });
});
