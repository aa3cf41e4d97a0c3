import { describe, expect, it } from 'vitest';
import { Cancellation, onCancel, reasonOf, signalOf } from '../../src/client/cancellation.js';

describe('Cancellation', () => {
  it('tells the watchers still armed, once, with the reason', () => {
    const cancellation = new Cancellation();
    const heard: string[] = [];
    cancellation.watch((reason) => heard.push(`first ${reason.message}`));
    const unwatch = cancellation.watch((reason) => heard.push(`second ${reason.message}`));
    unwatch();
    cancellation.abort(new Error('stop'));
    cancellation.abort(new Error('again'));
    expect(heard).toEqual(['first stop']);
    expect(cancellation.aborted).toBe(true);
    expect(cancellation.reason?.message).toBe('stop');
  });

  it('makes its signal on demand, aborted with the reason even when made after the abort', () => {
    const early = new Cancellation();
    const signal = signalOf(early);
    expect(signal.aborted).toBe(false);
    early.abort(new Error('early'));
    expect(signal.reason).toEqual(new Error('early'));

    const late = new Cancellation();
    late.abort(new Error('late'));
    expect(late.signal?.aborted).toBe(true);
    expect(late.signal?.reason).toEqual(new Error('late'));
  });

  it('reads a standard AbortSignal the same way', () => {
    const controller = new AbortController();
    let heard = 0;
    onCancel(controller.signal, () => heard++);
    const off = onCancel(controller.signal, () => heard++);
    off();
    controller.abort();
    expect(heard).toBe(1);
    expect(reasonOf(controller.signal)).toBeInstanceOf(DOMException);
    expect(signalOf(controller.signal)).toBe(controller.signal);
  });
});
