import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { type Clock, systemClock } from '../clock.js';
import { InvalidOptionError } from '../errors.js';
import { check, func, given, number } from '../option-rules.js';
import { defineOptions, type EarlierSettings } from '../option-spec.js';
import type { RedisLink } from './link.js';

/** Options of {@link redisFleet}. Give exactly one of `url`, `client` or `link`. */
export interface RedisFleetOptions {
  /** `redis://host:port`: the fleet opens its own node-redis connection (no offline queue). */
  url?: string;
  /** With `url`: the server is a Redis Cluster (`url` is one of its nodes). @default false */
  cluster?: boolean;
  /**
   * Your own connected client: a node-redis client or cluster (`redis`), or an
   * ioredis `Redis` or `Cluster`. Left open by `close()`. Turn its offline
   * queue off, or calls made while Redis is down wait in it (they still give
   * up after `callTimeoutMs`).
   */
  client?: unknown;
  /** Your own {@link RedisLink}, for any other client. */
  link?: RedisLink;
  /** Key prefix: a scope's keys are `<prefix>:{<scope id>}:…`. @default 'rw' */
  prefix?: string;
  /**
   * A request's slot is leased for this long and renewed while it runs: a
   * worker that dies (SIGKILL) gives its slots back within it, ms.
   * @default 5000
   */
  leaseMs?: number;
  /**
   * Longest any call waits on Redis, ms. Two failed calls in a row switch the
   * worker to local mode — timeouts only once Redis has answered nothing, not
   * even late, for three of these.
   * @default 100
   */
  callTimeoutMs?: number;
  /** Learned state unused for this long is forgotten (the scope starts fresh), ms. @default 86400000 (1 day) */
  stateTtlMs?: number;
  /** Outcomes are learned from in batches at most this often per scope, ms (refusals at once). @default 250 */
  learnEveryMs?: number;
  /**
   * How far ahead a request may reserve its send time on the shared schedule,
   * ms. A reserved request holds its slot while it waits; one that would wait
   * longer sleeps and asks again.
   * @default leaseMs
   */
  horizonMs?: number;
  /**
   * A worker that sends at least this many requests on a scope in one
   * renewal period (`leaseMs / 3`), while the scope's window holds at least 4
   * slots per live worker (and, on a paced scope, while no other worker is
   * live there), takes a rate lease there: a share of the scope's
   * window and rate, spent locally and renewed each period (outcomes go to
   * the learner every `learnEveryMs`), so its requests pay no Redis round
   * trip each. Otherwise each request is admitted through Redis (one shared
   * schedule, two round trips). `Infinity`: never lease.
   * @default 16
   */
  rateLeaseMinRequests?: number;
  /** This worker's name in the fleet. @default `<hostname>-<pid>-<random>` */
  workerId?: string;
  /** Receives one line when the worker leaves or rejoins shared mode. @default console.warn */
  log?: (line: string) => void;
  /** Time source for call deadlines and retries. @default systemClock */
  clock?: Clock;
}

/** The validated form of {@link RedisFleetOptions}. */
export interface FleetSettings {
  prefix: string;
  leaseMs: number;
  callTimeoutMs: number;
  stateTtlMs: number;
  learnEveryMs: number;
  horizonMs: number;
  rateLeaseMinRequests: number;
  /** Renewal period of leases and of the retry of an unreachable Redis. */
  renewMs: number;
  workerId: string;
  log: (line: string) => void;
  clock: Clock;
}

const OWNER = 'redisFleet';
const ms = (fallback: number | ((earlier: EarlierSettings) => number), min: number) =>
  number(fallback, { min, integer: true });

const readOptions = defineOptions<RedisFleetOptions>()(OWNER, {
  url: check('a redis:// or rediss:// URL', (value): value is string =>
    /^rediss?:\/\//.test(String(value)),
  ),
  cluster: given(),
  client: given(),
  link: given(),
  prefix: check(
    'letters, digits, _ . or -',
    (value): value is string => typeof value === 'string' && /^[\w.-]+$/.test(value),
    'rw',
  ),
  leaseMs: ms(5000, 100),
  callTimeoutMs: ms(100, 1),
  stateTtlMs: ms(86_400_000, 1000),
  learnEveryMs: ms(250, 1),
  horizonMs: ms((earlier) => earlier.leaseMs as number, 0),
  rateLeaseMinRequests: number(16, { min: 1, infinite: true }),
  workerId: given(),
  log: func<(line: string) => void>((line) => console.warn(line)),
  clock: given(systemClock),
});

/** Validates {@link RedisFleetOptions}; errors name the option, the value and what was expected. */
export function readFleetOptions(options: RedisFleetOptions): FleetSettings {
  const { url, cluster, client, link, workerId, ...settings } = readOptions(options);
  if ([url, client, link].filter((value) => value !== undefined).length !== 1)
    throw InvalidOptionError.invalid(OWNER, 'url', url, 'given alone (or `client`, or `link`)');
  return {
    ...settings,
    renewMs: Math.max(50, Math.floor(settings.leaseMs / 3)),
    workerId: workerId ?? defaultWorkerId(),
  };
}

function defaultWorkerId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}
