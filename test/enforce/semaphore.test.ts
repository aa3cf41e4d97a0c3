import { describe, expect, it } from 'vitest';
import { Semaphore } from '../../src/enforce/semaphore.js';
import { AdmissionTimeoutError } from '../../src/errors.js';
import { VirtualClock } from '../../src/virtual-clock.js';

describe('Semaphore', () => {
  it('admits up to the limit, then parks callers in FIFO order', async () => {
    const sem = new Semaphore(2, new VirtualClock());
    const order: number[] = [];
    await sem.acquire();
    await sem.acquire();
    const waiting = [1, 2, 3].map((n) => sem.acquire().then(() => order.push(n)));
    expect(sem.queued).toBe(3);
    expect(sem.tryAcquire()).toBe(false);
    sem.release();
    sem.release();
    sem.release();
    await Promise.all(waiting);
    expect(order).toEqual([1, 2, 3]);
    expect(sem.inflight).toBe(2);
  });

  it('shrinking cancels nothing; growing wakes parked callers at once', async () => {
    const sem = new Semaphore(3, new VirtualClock());
    for (let i = 0; i < 3; i++) await sem.acquire();
    sem.setLimit(1);
    expect(sem.inflight).toBe(3);
    let admitted = 0;
    const parked = [sem.acquire(), sem.acquire()].map((p) => p.then(() => admitted++));
    sem.release();
    sem.release();
    await Promise.resolve();
    expect(admitted).toBe(0); // still at the new limit of 1
    sem.setLimit(3);
    await Promise.all(parked);
    expect(admitted).toBe(2);
    expect(sem.inflight).toBe(3);
  });

  it('a timed-out or aborted waiter leaves the queue and does not consume a wake-up', async () => {
    const clock = new VirtualClock();
    const sem = new Semaphore(1, clock);
    await sem.acquire();
    const timedOut = sem.acquire({ timeoutMs: 100 });
    const controller = new AbortController();
    const aborted = sem.acquire({ signal: controller.signal });
    const patient = sem.acquire();
    controller.abort(new Error('caller gave up'));
    await expect(aborted).rejects.toThrow('caller gave up');
    const timeoutChecked = expect(timedOut).rejects.toBeInstanceOf(AdmissionTimeoutError);
    await clock.advance(100);
    await timeoutChecked;
    expect(sem.queued).toBe(1);
    sem.release();
    await patient;
    expect(sem.inflight).toBe(1);
  });

  it('rejects a bad limit with a message naming it, and a release without a permit', () => {
    expect(() => new Semaphore(0)).toThrow(/option `limit` must be an integer >= 1, got 0/);
    expect(() => new Semaphore(1.5)).toThrow(/integer/);
    expect(() => new Semaphore(1).release()).toThrow(/no permit is held/);
  });
});
