import { describe, expect, it } from 'vitest';
import { scopeKeys } from '../../src/redis/keys.js';
import { learnReadScript } from '../../src/redis/lua/learn.js';
import { releaseScript } from '../../src/redis/lua/release.js';
import { shareScript } from '../../src/redis/lua/share.js';
import type { RedisFleet } from '../../src/redis/redis-fleet.js';
import { OK, pause, REFUSED, until, useRedis } from './fleet-helpers.js';

const redis = useRedis();

describe('outcomes under a rate lease reach the learner in the order they were answered', () => {
  it('a refusal carries the successes gathered before it (the learner measures what was granted from them)', async () => {
    // Renewals every second, no flush of gathered outcomes for 5 s: only the refusal can carry them.
    const fleet = await redis.fleet({ leaseMs: 3000, learnEveryMs: 5000, rateLeaseMinRequests: 2 });
    const registry = redis.registry(fleet, { maxConcurrency: 8, initialConcurrency: 8 });
    const scope = 'host:lease-order';
    const keys = scopeKeys('rw', scope);
    // Another worker holds the learning lock: the queued outcomes stay where the test reads them.
    await fleet.link.command(keys.learner, ['SET', keys.learner, 'w-other', 'PX', '60000']);
    const share = async () =>
      String((await fleet.link.command(keys.shares, ['HGET', keys.shares, 'w1'])) ?? '');
    let ok = 0;
    let running = true;
    const lanes = Array.from({ length: 4 }, async () => {
      while (running) {
        const permit = await registry.admit(scope);
        await pause(5);
        permit.report(OK);
        ok++;
      }
    });
    await until(async () => (await share()) !== '');
    expect(await share()).not.toBe('');
    // Requests admitted one by one before the share have ended; successes since are gathered.
    await pause(200);
    const refused = await registry.admit(scope);
    const okBefore = ok;
    refused.report(REFUSED);
    /** The queued outcomes' kinds, once the refusal is among them. */
    const queued = async () => {
      const raw = (await fleet.link.command(keys.samples, [
        'LRANGE',
        keys.samples,
        '0',
        '-1',
      ])) as string[];
      return raw.map((text) => (JSON.parse(text) as { g: { kind: string } }).g.kind);
    };
    let kinds: string[] = [];
    await until(async () => {
      kinds = await queued();
      return kinds.includes('throttled');
    });
    running = false;
    await Promise.all(lanes);
    expect(kinds).toContain('throttled');
    // Before, the successes gathered since the last renewal came with the next one, after it.
    const okQueued = kinds.slice(0, kinds.indexOf('throttled')).filter((k) => k === 'ok').length;
    expect(okQueued).toBeGreaterThanOrEqual(okBefore);
    expect(okBefore).toBeGreaterThan(0);
  }, 60_000);

  it('outcomes a renewal brings are learned at once by the worker holding the lock, not at its next look', async () => {
    // Renewals every second; the learner looks every 3 s by itself.
    const fleet = await redis.fleet({ leaseMs: 3000, learnEveryMs: 3000, rateLeaseMinRequests: 2 });
    const registry = redis.registry(fleet, { maxConcurrency: 8, initialConcurrency: 8 });
    /** This worker's shares bringing outcomes ('s') and learner reads ('l'), in the order sent. */
    const calls: string[] = [];
    const command = fleet.link.command.bind(fleet.link);
    fleet.link.command = (key, args) => {
      if (args[1] === shareScript.sha && args.length > 3 + 8 + 12) calls.push('s');
      if (args[1] === learnReadScript.sha) calls.push('l');
      return command(key, args);
    };
    let running = true;
    const lanes = Array.from({ length: 4 }, async () => {
      while (running) {
        const permit = await registry.admit('host:lease-learns');
        await pause(5);
        permit.report(OK);
      }
    });
    await pause(7000);
    running = false;
    await Promise.all(lanes);
    // From the learner's first read on (it holds the lock), each renewal bringing outcomes is
    // followed by a read before the next one; before, by one every third renewal or so.
    const since = calls.slice(calls.indexOf('l'));
    const shares = since.filter((call) => call === 's').length;
    const learnedAtOnce = since.filter((call, i) => call === 's' && since[i + 1] === 'l').length;
    expect(shares).toBeGreaterThanOrEqual(3);
    expect(learnedAtOnce).toBeGreaterThanOrEqual(0.8 * shares);
  });

  it('a cut is learned with the outcomes other workers answered before it: they send them when they hear of it, nothing is read meanwhile', async () => {
    const cut = await cutBetweenTwo('host:cut-settles', { lockFree: false });
    expect(cut.read, cut.seen).toBeGreaterThanOrEqual(0);
    expect(cut.bBefore, cut.seen).toBeGreaterThan(0);
    expect(cut.learnedFromB, cut.seen).toBeGreaterThanOrEqual(cut.bBefore);
  }, 90_000);

  it('a cut claimed while no worker holds the learning lock has the others send theirs too (the reporter takes the lock)', async () => {
    const cut = await cutBetweenTwo('host:cut-lock-free', { lockFree: true });
    expect(cut.tookLock, cut.seen).toBe(true);
    expect(cut.read, cut.seen).toBeGreaterThanOrEqual(0);
    expect(cut.bBefore, cut.seen).toBeGreaterThan(0);
    // Before, nobody was told of the cut: b's successes came with its next renewal, after the read.
    expect(cut.learnedFromB, cut.seen).toBeGreaterThanOrEqual(cut.bBefore);
  }, 90_000);
});

/** What the learner reads of either worker returned (in order) and who read it; what b sent. */
interface Watched {
  reads: string[][];
  readers: string[];
  sentByB: Set<string>;
  /** Whether b's share was granted slots. */
  bGranted: boolean;
  /** Whether the refusal that cut took the learning lock (unknown until it reached Redis). */
  tookLock?: boolean;
}

/** Watches the calls of `a` and `b`; b's shares reach Redis 200 ms after they are sent. */
function watch(a: RedisFleet, b: RedisFleet): Watched {
  const watched: Watched = { reads: [], readers: [], sentByB: new Set(), bGranted: false };
  for (const fleet of [a, b]) {
    const command = fleet.link.command.bind(fleet.link);
    fleet.link.command = async (key, args) => {
      if (fleet === b)
        for (const arg of args) if (arg.startsWith('{"s":')) watched.sentByB.add(arg);
      // Late shares: the cut is read after them only if the learner waits for them.
      if (fleet === b && args[1] === shareScript.sha) await pause(200);
      const reply = (await command(key, args)) as unknown[];
      // As b sent them: Redis stamps each outcome it queues with its admission order (`ORDER`).
      const unstamped = (text: string) => text.replace(/,"[qm]":\d+/g, '');
      if (args[1] === learnReadScript.sha && Number(reply[0]) === 1) {
        watched.reads.push((reply[4] as string[]).map(unstamped));
        watched.readers.push(fleet.settings.workerId);
      }
      if (fleet === b && args[1] === shareScript.sha && Number(reply[11]) > 0)
        watched.bGranted = true;
      if (args[1] === releaseScript.sha && Number(reply[2]) === 1)
        watched.tookLock = Number(reply[1]) === 1;
      return reply;
    };
  }
  return watched;
}

/** Four callers of `fleet` on `scope` sending 20 ms requests while `running()`; `oks` counts their successes. */
function drive(
  fleet: RedisFleet,
  scope: string,
  running: () => boolean,
  oks: Map<RedisFleet, number>,
) {
  const registry = redis.registry(fleet, { maxConcurrency: 8, initialConcurrency: 8 });
  const lanes = Array.from({ length: 4 }, async () => {
    while (running()) {
      const permit = await registry.admit(scope);
      await pause(20);
      permit.report(OK);
      oks.set(fleet, (oks.get(fleet) ?? 0) + 1);
    }
  });
  return { registry, lanes };
}

/**
 * Two workers a and b on `scope` (see {@link drive}), b under a rate lease (see {@link watch});
 * 300 ms after b's share is granted (its next renewal is 2 s on) a reports a refusal — with the
 * learning lock free then, when `lockFree`. The index of the read (either worker's: the lock
 * passes to b when a looks later than the lock's time) that learned the refusal, the successes
 * b reported before the refusal and how many of them that read or an earlier one learned,
 * whether the refusal took the learning lock, and a line for messages.
 */
async function cutBetweenTwo(scope: string, { lockFree }: { lockFree: boolean }) {
  // Renewals every 2 s, no flush of gathered outcomes for 5 s; calls time out after 1 s (the
  // settling). Requests of 20 ms: what queues meanwhile stays below a learning step's 1,000.
  const options = { leaseMs: 6000, learnEveryMs: 5000, rateLeaseMinRequests: 2 };
  const [a, b] = [await redis.fleet(options), await redis.fleet(options)];
  const keys = scopeKeys('rw', scope);
  const watched = watch(a, b);
  let running = true;
  const oks = new Map<RedisFleet, number>();
  const first = drive(a, scope, () => running, oks); // a's first outcomes take the learning lock
  const learner = async () => String(await a.link.command(keys.learner, ['GET', keys.learner]));
  await until(async () => (await learner()) === a.settings.workerId);
  const second = drive(b, scope, () => running, oks);
  await until(async () => watched.bGranted);
  await pause(300); // b gathers successes under its share (it sends them with a renewal 2 s on)
  const refused = await first.registry.admit(scope);
  const bBefore = oks.get(b) ?? 0;
  // Sent ahead of the refusal on a's connection: Redis runs the two in a row.
  if (lockFree) void a.link.command(keys.learner, ['DEL', keys.learner]);
  refused.report(REFUSED);
  const { reads, readers, sentByB } = watched;
  const cutRead = () => reads.findIndex((samples) => samples.some((t) => t.includes('thrott')));
  await until(async () => cutRead() >= 0);
  running = false;
  await Promise.all([...first.lanes, ...second.lanes]);
  // Every success b reported before the refusal was learned by the read that learned it, or
  // before. Before, a regular look or the cut's own read could come first; b's successes then
  // came with its next renewal.
  const read = cutRead();
  const learnedFromB = reads
    .slice(0, read + 1)
    .flat()
    .filter((text) => sentByB.has(text)).length;
  const seen = `b reported ${bBefore} before the refusal, sent ${sentByB.size}; the cut's read: ${reads[read]?.length} by ${readers[read]}; lock taken by the refusal: ${watched.tookLock}`;
  return { read, bBefore, learnedFromB, tookLock: watched.tookLock, seen };
}
