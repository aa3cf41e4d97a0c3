import { describe, expect, it } from 'vitest';
import { scopeKeys } from '../../src/redis/keys.js';
import { learnApplyScript } from '../../src/redis/lua/learn.js';
import type { RedisFleet } from '../../src/redis/redis-fleet.js';
import { OK, pause, stateOf, useRedis } from './fleet-helpers.js';

const redis = useRedis();
const CONTROL = { rate: 10, maxConcurrency: 16, initialConcurrency: 16 } as const;

/** Writes a new fleet rate as the learner does (the test holds the learning lock). */
async function learnRate(fleet: RedisFleet, scope: string, rate: number): Promise<void> {
  const keys = scopeKeys('rw', scope);
  const { ver, win, alg } = await stateOf(fleet, keys.state);
  const applied = await fleet.run(
    learnApplyScript,
    [keys.state, keys.samples, keys.learner, keys.channel],
    ['tester', ver ?? '0', '0', alg ?? '', win ?? '16', String(rate), '0', '60000', '60000'],
  );
  expect(applied[0]).toBe(1);
}

/** 10 requests of one worker booked at once on a 10 req/s schedule; the fleet's rate becomes `rate` 50 ms after the first send. */
async function bookThenLearn(scope: string, rate: number) {
  const fleet = await redis.fleet();
  const registry = redis.registry(fleet, CONTROL);
  const keys = scopeKeys('rw', scope);
  // The test is the learner: the worker's own learner never gets the lock.
  await fleet.link.command(keys.learner, ['SET', keys.learner, 'tester', 'PX', '60000']);
  const sends: number[] = [];
  const admitted = Array.from({ length: 10 }, async () => {
    const permit = await registry.admit(scope);
    sends.push(performance.now());
    return permit;
  });
  while (sends.length === 0) await pause(1);
  await pause(50);
  await learnRate(fleet, scope, rate);
  const permits = await Promise.all(admitted);
  // Another worker books after the change: its send continues the moved schedule.
  const other = redis.registry(await redis.fleet(), CONTROL);
  const next = await other.admit(scope);
  const nextAt = performance.now();
  for (const permit of [...permits, next]) permit.report(OK);
  const first = sends[0] as number;
  return { span: (sends.at(-1) as number) - first, next: nextAt - first };
}

describe('booked send times follow a change of the fleet rate', () => {
  it('a probe (10 → 20 req/s) brings the booked sends forward at once', async () => {
    const { span, next } = await bookThenLearn('host:retime-up', 20);
    // 9 gaps of 100 ms booked; from ~50 ms on they halve: ~475 ms (900 before).
    expect(span).toBeLessThan(700);
    expect(span).toBeGreaterThan(350);
    // The next booking follows the moved tail at the new pace (not at 1 s, nor among them).
    expect(next - span).toBeGreaterThan(25);
    expect(next - span).toBeLessThan(250);
  });

  it('a cut (10 → 5 req/s) spreads the booked sends at once', async () => {
    const { span } = await bookThenLearn('host:retime-down', 5);
    // From ~50 ms on the gaps double: ~1,750 ms (900 before).
    expect(span).toBeGreaterThan(1300);
    expect(span).toBeLessThan(2500);
  });
});
