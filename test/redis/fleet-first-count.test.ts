import { describe, expect, it } from 'vitest';
import type { Permit } from '../../src/controller/permit.js';
import { scopeKeys } from '../../src/redis/keys.js';
import type { RedisFleet } from '../../src/redis/redis-fleet.js';
import { OK, pause, REFUSED, stateOf, until, useRedis } from './fleet-helpers.js';

const redis = useRedis();

/** Redis's clock, ms. */
async function redisNow(fleet: RedisFleet): Promise<number> {
  const [seconds, micros] = (await fleet.link.command(undefined, ['TIME'])) as [string, string];
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/**
 * Resolves at `startedAt + ms` (local): sends paced so keep their schedule on a loaded machine,
 * where a pause after each send adds every admission's and timer's lateness to all later ones.
 */
function pauseUntil(startedAt: number, ms: number): Promise<void> {
  return pause(Math.max(0, startedAt + ms - performance.now()));
}

/**
 * A slow start's first second on `scope`: 31 sends 20 ms apart (the 31st 600 ms after the
 * first, well inside the second), four in flight (each page answered four sends after it
 * went), the 31st still out; the permits in sending order.
 */
async function firstSecond(registry: ReturnType<typeof redis.registry>, scope: string) {
  const permits: Permit[] = [];
  const startedAt = performance.now();
  for (let k = 0; k < 31; k++) {
    await pauseUntil(startedAt, 20 * k);
    permits.push(await registry.admit(scope));
    if (k >= 4) permits[k - 4]?.report(OK);
  }
  const spanMs = performance.now() - startedAt;
  // The refusal comes within the first second only if the sends did (a stall of 400 ms not).
  expect(spanMs, 'the 31 sends took a second: the machine stalled').toBeLessThan(1000);
  await pause(20);
  return permits;
}

/** Whether the scope's rate is learned and no outcome is left queued for the learner. */
async function learnedAll(fleet: RedisFleet, keys: ReturnType<typeof scopeKeys>): Promise<boolean> {
  const state = await stateOf(fleet, keys.state);
  const queued = await fleet.link.command(keys.samples, ['LLEN', keys.samples]);
  return Number(state.rate) > 0 && Number(queued) === 0;
}

/**
 * The rate the fleet learns from {@link firstSecond} on `scope` with the 31st refused
 * (`Retry-After: 1`) and the last three pages answered after the refusal, once every
 * outcome is learned.
 */
async function countedRate(
  fleet: RedisFleet,
  registry: ReturnType<typeof redis.registry>,
  scope: string,
): Promise<number> {
  const keys = scopeKeys('rw', scope);
  const permits = await firstSecond(registry, scope);
  (permits[30] as Permit).report({ ...REFUSED, retryAfterMs: 1000 });
  await pause(20);
  for (const permit of permits.slice(27, 30)) permit.report(OK);
  await until(() => learnedAll(fleet, keys));
  await pause(300); // a step that read before the late acceptances came has its successor
  await until(() => learnedAll(fleet, keys));
  return Number((await stateOf(fleet, keys.state)).rate);
}

describe("a fleet's first count, its acceptances answered after the refusal", () => {
  it('reads the whole first second a window granted, as one process does', async () => {
    // A slow start refused inside its first second by a 1 s window of 30 (`Retry-After: 1`):
    // 30 sends accepted, then the 31st refused. A 429 is quick and a page takes a round trip, so
    // the last acceptances come after the refusal — the learner must count them, not read the
    // second when the first of them is in (28 of 30 there: a pace a fifteenth low).
    const fleet = await redis.fleet();
    const registry = redis.registry(fleet, { maxConcurrency: 64, initialConcurrency: 40 });
    const rate = await countedRate(fleet, registry, 'host:first-count');
    // The count of the whole second, 30, a margin (3 %) under it.
    expect(rate).toBeCloseTo(30 * 0.97, 5);
  });

  it('reads it as soon as the fleet is drained when another worker is live there', async () => {
    // The same second, with a second worker live on the scope: each outcome's own count of
    // what is in flight is then an upper bound (the fleet's leases as Redis last counted them)
    // and never 0. Redis's admission order tells when every request sent before the refused one
    // is answered: the count is read then, in the pause, not at its due time (main: at the first
    // acceptance after it — none comes here, and the refusal's reading, about 40, held).
    const [fleet, other] = [await redis.fleet(), await redis.fleet()];
    const registry = redis.registry(fleet, { maxConcurrency: 64, initialConcurrency: 40 });
    const otherRegistry = redis.registry(other, { maxConcurrency: 64, initialConcurrency: 40 });
    const scope = 'host:first-count-fleet';
    const theirs = await otherRegistry.admit(scope); // live on the scope from here on
    await pause(20);
    theirs.report(OK);
    const rate = await countedRate(fleet, registry, scope);
    // The whole second (31 accepted, the other worker's one included), a margin under it.
    expect(rate).toBeCloseTo(31 * 0.97, 5);
  });

  it('has Redis tell the learner at once when the refusal drains, not at its next look', async () => {
    // Learners that look every 3 s, a cut settling 300 ms (a call's time), a refusal asking 2 s:
    // the acceptances still out when the refusal is learned come after it, and the one that
    // drains the refused number has the scope learned at once, as a cut does — the count is
    // read within the pause (main: at the next look, 3 s on).
    const options = { learnEveryMs: 3000, callTimeoutMs: 300 };
    const [fleet, other] = [await redis.fleet(options), await redis.fleet(options)];
    const registry = redis.registry(fleet, { maxConcurrency: 64, initialConcurrency: 40 });
    const otherRegistry = redis.registry(other, { maxConcurrency: 64, initialConcurrency: 40 });
    const scope = 'host:first-count-told';
    const keys = scopeKeys('rw', scope);
    const theirs = await otherRegistry.admit(scope);
    await pause(20);
    theirs.report(OK);
    const permits = await firstSecond(registry, scope);
    const refusedAt = performance.now();
    (permits[30] as Permit).report({ ...REFUSED, retryAfterMs: 2000 });
    const state = () => stateOf(fleet, keys.state);
    await until(async () => Number((await state()).rate) > 0); // the refusal's step
    const version = Number((await state()).ver);
    const drainedAt = performance.now();
    for (const permit of permits.slice(27, 30)) permit.report(OK);
    // The learner's next write: the step that learns them.
    await until(async () => Number((await state()).ver) > version, 5000);
    expect(drainedAt - refusedAt).toBeLessThan(1500); // the refusal was learned before they came
    expect(performance.now() - drainedAt).toBeLessThan(1000);
    expect(Number(await fleet.link.command(keys.samples, ['LLEN', keys.samples]))).toBe(0);
  });

  it('waits for a killed worker’s request sent before the refusal until its lease expires', async () => {
    // A worker admitted one request, then was killed (no renewal, no end): its lease stays in
    // Redis until it expires, and until then the fleet is not drained — the request may yet be
    // accepted. Once it has expired, the next acceptance learned reads the count, before its
    // due time; the dead lease's place in the admission order is gone with it.
    const dying = await redis.fleet({ leaseMs: 2000 });
    const dead = redis.registry(dying, { maxConcurrency: 64, initialConcurrency: 40 });
    const fleet = await redis.fleet();
    const registry = redis.registry(fleet, { maxConcurrency: 64, initialConcurrency: 40 });
    const scope = 'host:first-count-killed';
    const keys = scopeKeys('rw', scope);
    await dead.admit(scope);
    await dead.close(); // like a SIGKILL: the lease stays until it expires
    const expiry = Number(
      await fleet.link.command(keys.leases, [
        'ZSCORE',
        keys.leases,
        `${dying.settings.workerId}#1`,
      ]),
    );
    const permits: Permit[] = [];
    const startedAt = performance.now();
    for (let k = 0; k < 31; k++) {
      await pauseUntil(startedAt, 10 * k);
      permits.push(await registry.admit(scope));
      if (k >= 4 && k !== 30) permits[k - 4]?.report(OK);
    }
    await pause(10);
    const refusedAt = await redisNow(fleet);
    // A two-second pause: the count is due two seconds on, the dead lease expires before that.
    (permits[30] as Permit).report({ ...REFUSED, retryAfterMs: 2000 });
    await pause(20);
    for (const permit of permits.slice(27, 30)) permit.report(OK);
    const queuedNone = async () =>
      Number(await fleet.link.command(keys.samples, ['LLEN', keys.samples])) === 0;
    await until(queuedNone);
    await pause(300);
    await until(queuedNone);
    const reading = Number((await stateOf(fleet, keys.state)).rate);
    // Sent before the refused one and still out (the dead worker's, and the 27th): not counted yet.
    expect(reading).toBeGreaterThan(35);
    await until(async () => (await redisNow(fleet)) > expiry);
    (permits[26] as Permit).report(OK);
    const answeredAt = await redisNow(fleet);
    await until(async () => Number((await stateOf(fleet, keys.state)).rate) !== reading);
    expect(answeredAt).toBeLessThan(refusedAt + 2000); // before the count's due time
    expect(Number((await stateOf(fleet, keys.state)).rate)).toBeCloseTo(30 * 0.97, 5);
    expect(Number(await fleet.link.command(keys.order, ['ZCARD', keys.order]))).toBe(0);
  });
});
