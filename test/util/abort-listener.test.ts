import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { onAbort } from '../../src/util/abort-listener.js';

describe('onAbort', () => {
  it('hangs every listener of a signal off one real listener, removed with the last', () => {
    const controller = new AbortController();
    const heard: string[] = [];
    const offs = Array.from({ length: 50 }, (_, i) =>
      onAbort(controller.signal, () => heard.push(`${i}`)),
    );
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    for (const off of offs) off();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    controller.abort();
    expect(heard).toEqual([]);
  });

  it('calls each listener still registered once, the same function registered twice twice', () => {
    const controller = new AbortController();
    let calls = 0;
    const count = () => calls++;
    onAbort(controller.signal, count);
    onAbort(controller.signal, count);
    const off = onAbort(controller.signal, () => {
      calls += 100;
    });
    off();
    off(); // twice is harmless
    controller.abort();
    controller.abort();
    expect(calls).toBe(2);
    // After the abort the signal is free again: a later registration starts afresh.
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
