import { createHash } from 'node:crypto';

/**
 * The Redis names of one scope. Every key and the scope's channel carry the
 * same hash tag, `{<scope id>}`, so on Redis Cluster they all live in one slot
 * and a script may touch them together (no CROSSSLOT).
 */
export interface ScopeKeys {
  /** The scope id: a short hash of the scope name. */
  readonly id: string;
  /** Hash: learned numbers, pause, epoch, version, GCRA arrival time. */
  readonly state: string;
  /** Sorted set: lease id → expiry (Redis ms). */
  readonly leases: string;
  /** Sorted set: lease id → its admission's sequence number (see `ORDER`). */
  readonly order: string;
  /** Sorted set: worker id → liveness expiry (Redis ms). */
  readonly workers: string;
  /** Sorted set: workers waiting for a slot → when they began (Redis µs), first woken first. */
  readonly waiting: string;
  /** Hash: worker → its rate lease (rate, slots, expiry, what it wanted). */
  readonly shares: string;
  /** List: outcomes waiting for the learner. */
  readonly samples: string;
  /** String: the worker that holds the learning lock. */
  readonly learner: string;
  /** Sharded pub/sub channel: wake-ups (a slot freed, a pause, new numbers). */
  readonly channel: string;
}

/** The scope id: 16 hex digits of SHA-1, enough to keep a million scopes apart. */
export function scopeId(scope: string): string {
  return createHash('sha1').update(scope).digest('hex').slice(0, 16);
}

/** The keys of `scope` under `prefix` (`rw` by default). */
export function scopeKeys(prefix: string, scope: string): ScopeKeys {
  const id = scopeId(scope);
  const base = `${prefix}:{${id}}:`;
  return {
    id,
    state: `${base}st`,
    leases: `${base}ls`,
    order: `${base}ord`,
    workers: `${base}wk`,
    waiting: `${base}wq`,
    shares: `${base}sh`,
    samples: `${base}smp`,
    learner: `${base}ln`,
    channel: `${base}ch`,
  };
}

/** The SCAN pattern that finds every scope's state key under `prefix`. */
export function statePattern(prefix: string): string {
  return `${prefix}:{*}:st`;
}
