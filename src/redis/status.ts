import { rateOf } from './fleet-view.js';
import { statePattern } from './keys.js';
import type { RedisLink } from './link.js';

/** One scope's fleet state, as `ratewise fleet status` shows it. */
export interface ScopeStatus {
  /** The scope key, e.g. `host:example.com`. */
  scope: string;
  /** The scope id in the Redis keys. */
  id: string;
  /** The fleet's concurrency window. */
  window: number;
  /** The fleet's rate, requests/s; `null` when unpaced. */
  rate: number | null;
  /** The congestion epoch (how many congestion events cut so far). */
  epoch: number;
  /** How many times the learned state was written. */
  version: number;
  /** Requests holding a lease, by worker. */
  inflight: Record<string, number>;
  /** Workers seen on the scope within twice the lease time. */
  workers: string[];
  /** Time left of a fleet-wide pause, ms (0 when none). */
  pausedForMs: number;
  /** Time left before the learned state expires unused, ms. */
  ttlMs: number;
}

/**
 * Reads every scope's fleet state under `prefix` (on every master of a
 * cluster), sorted by scope. Times come from Redis's clock.
 */
export async function readFleetStatus(link: RedisLink, prefix = 'rw'): Promise<ScopeStatus[]> {
  const scopes: ScopeStatus[] = [];
  for await (const key of link.scan(statePattern(prefix))) {
    const base = key.slice(0, -'st'.length);
    const [state, leases, workers, time, ttl] = await Promise.all([
      link.command(key, ['HGETALL', key]),
      link.command(key, ['ZRANGE', `${base}ls`, '0', '-1', 'WITHSCORES']),
      link.command(key, ['ZRANGE', `${base}wk`, '0', '-1', 'WITHSCORES']),
      link.command(key, ['TIME']),
      link.command(key, ['PTTL', key]),
    ]);
    const fields = asRecord(state);
    // The scope's clock (see the scripts' prelude): Redis's, never going back.
    const clock = Number(fields.clk ?? 0) / 1000;
    const now = Math.max(redisMs(time) + Number(fields.clkoff ?? 0) / 1000, clock);
    if (fields.scope === undefined) continue;
    scopes.push({
      scope: fields.scope,
      id: key.slice(prefix.length + 2, -'}:st'.length),
      window: Number(fields.win ?? 0),
      rate: finiteOrNull(rateOf(fields.rate)),
      epoch: Number(fields.ep ?? 0),
      version: Number(fields.ver ?? 0),
      inflight: countByWorker(pairs(leases).filter(([, expiry]) => expiry > now)),
      workers: pairs(workers)
        .filter(([, expiry]) => expiry > now)
        .map(([worker]) => worker),
      pausedForMs: Math.max(0, Number(fields.pause ?? 0) - now),
      ttlMs: Math.max(0, Number(ttl)),
    });
  }
  return scopes.sort((a, b) => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0));
}

function redisMs(time: unknown): number {
  const [seconds, micros] = time as [unknown, unknown];
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** HGETALL's reply: a map (RESP3) or a flat list (RESP2). */
function asRecord(reply: unknown): Record<string, string> {
  if (!Array.isArray(reply))
    return Object.fromEntries(Object.entries(reply as object).map(([k, v]) => [k, String(v)]));
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < reply.length; i += 2) out[String(reply[i])] = String(reply[i + 1]);
  return out;
}

/** A ZRANGE … WITHSCORES reply as [member, score] pairs (flat in RESP2, nested in RESP3). */
function pairs(reply: unknown): [string, number][] {
  const list = reply as unknown[];
  if (list.length > 0 && Array.isArray(list[0]))
    return (list as [unknown, unknown][]).map(([member, score]) => [String(member), Number(score)]);
  const out: [string, number][] = [];
  for (let i = 0; i + 1 < list.length; i += 2) out.push([String(list[i]), Number(list[i + 1])]);
  return out;
}

/** Lease ids are `<worker>#<n>`: counts them by worker. */
function countByWorker(leases: [string, number][]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [lease] of leases) {
    const worker = lease.slice(0, lease.lastIndexOf('#'));
    counts[worker] = (counts[worker] ?? 0) + 1;
  }
  return counts;
}

function finiteOrNull(rate: number): number | null {
  return Number.isFinite(rate) ? rate : null;
}
