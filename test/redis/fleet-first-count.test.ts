import { describe, expect, it } from 'vitest';
import type { Permit } from '../../src/controller/permit.js';
import { scopeKeys } from '../../src/redis/keys.js';
import { OK, pause, REFUSED, stateOf, until, useRedis } from './fleet-helpers.js';

const redis = useRedis();

describe("a fleet's first count, its acceptances answered after the refusal", () => {
  it('reads the whole first second a window granted, as one process does', async () => {
    // A slow start refused inside its first second by a 1 s window of 30 (`Retry-After: 1`):
    // 30 sends accepted, then the 31st refused. A 429 is quick and a page takes a round trip, so
    // the last acceptances come after the refusal — the learner must count them, not read the
    // second when the first of them is in (28 of 30 there: a pace a fifteenth low).
    const fleet = await redis.fleet();
    const registry = redis.registry(fleet, { maxConcurrency: 64, initialConcurrency: 40 });
    const scope = 'host:first-count';
    const keys = scopeKeys('rw', scope);
    // Four in flight at a time, each page answered four sends after it went.
    const permits: Permit[] = [];
    for (let k = 0; k < 31; k++) {
      permits.push(await registry.admit(scope));
      if (k >= 4) permits[k - 4]?.report(OK);
      await pause(20);
    }
    (permits[30] as Permit).report({ ...REFUSED, retryAfterMs: 1000 });
    await pause(20);
    for (const permit of permits.slice(27, 30)) permit.report(OK);
    const learned = async () => {
      const state = await stateOf(fleet, keys.state);
      const queued = await fleet.link.command(keys.samples, ['LLEN', keys.samples]);
      return Number(state.rate) > 0 && Number(queued) === 0;
    };
    await until(learned);
    await pause(300); // a step that read before the late acceptances came has its successor
    await until(learned);
    // The count of the whole second, 30, a margin (3 %) under it.
    expect(Number((await stateOf(fleet, keys.state)).rate)).toBeCloseTo(30 * 0.97, 5);
  });
});
