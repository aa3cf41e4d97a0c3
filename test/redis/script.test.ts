import { describe, expect, it } from 'vitest';
import type { CancelTimer, Clock } from '../../src/clock.js';
import { RedisTimeoutError } from '../../src/errors.js';
import { withinMs } from '../../src/redis/script.js';

/** A clock whose timers fire only when the test says (the event loop's turns, by hand), at the time it sets. */
function handClock(): Clock & { fire: () => void; at: (ms: number) => void } {
  const due: { callback: () => void; live: boolean }[] = [];
  let now = 0;
  return {
    now: () => now,
    wallNow: () => now,
    at: (ms) => {
      now = ms;
    },
    setTimer(_ms, callback): CancelTimer {
      const timer = { callback, live: true };
      due.push(timer);
      return () => {
        timer.live = false;
      };
    },
    sleep: () => Promise.resolve(),
    fire() {
      const timer = due.shift();
      if (timer?.live) timer.callback();
    },
  };
}

/** A call whose reply the test delivers. */
function pending<T>(): { call: Promise<T>; reply: (value: T) => void } {
  let reply!: (value: T) => void;
  const call = new Promise<T>((resolve) => {
    reply = resolve;
  });
  return { call, reply };
}

describe('withinMs', () => {
  it('takes a reply that came in while the caller was descheduled past its deadline', async () => {
    const clock = handClock();
    const { call, reply } = pending<string>();
    const verdict = withinMs(clock, 100, call);
    clock.fire(); // the deadline's timer runs first when the worker gets the CPU back…
    reply('PONG'); // …then the event loop reads the reply that arrived meanwhile
    await Promise.resolve();
    clock.fire();
    await expect(verdict).resolves.toBe('PONG');
  });

  it('times out when no reply is in one timer turn after the deadline; a later one goes to late', async () => {
    const clock = handClock();
    const { call, reply } = pending<string>();
    const late: string[] = [];
    const verdict = withinMs(clock, 100, call, (value) => late.push(value));
    clock.fire();
    clock.fire();
    await expect(verdict).rejects.toBeInstanceOf(RedisTimeoutError);
    reply('PONG');
    await Promise.resolve();
    expect(late).toEqual(['PONG']);
  });

  it('tells when its timers were due and when they ran (how long the worker was not running)', async () => {
    const clock = handClock();
    const ran: [number, number][] = [];
    const verdict = withinMs(clock, 100, pending<string>().call, undefined, (due, at) =>
      ran.push([due, at]),
    );
    clock.at(700); // the worker gets the CPU back 600 ms after the deadline
    clock.fire();
    clock.at(705);
    clock.fire();
    await expect(verdict).rejects.toBeInstanceOf(RedisTimeoutError);
    expect(ran).toEqual([
      [100, 700],
      [700, 705],
    ]);
  });
});
