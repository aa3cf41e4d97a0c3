import type { Writable } from 'node:stream';
import type { RatewiseClient } from '../client/client.js';
import type { ClientOptions } from '../client/options.js';
import { type Clock, systemClock } from '../clock.js';
import { DEFAULT_MAX_CONCURRENCY } from '../controller/defaults.js';
import type { ScopeFactory } from '../controller/registry.js';
import { byDomain, byHost, type ScopeResolver } from '../controller/resolvers.js';
import { InvalidOptionError } from '../errors.js';
import type { EventSink } from '../events/event.js';
import { check, choice, custom, func, number, required } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import type { CrawlProgress } from './crawl-progress.js';

/** Options of {@link runCrawl}. */
export interface CrawlOptions {
  /** The URLs, one per item; blank items and `#` comments are skipped. */
  urls: AsyncIterable<string> | Iterable<string>;
  /** How many URLs `urls` has (blank items and comments not counted), when known: for the progress. */
  total?: number;
  /** Results: one JSON line per finished URL, to a file (a path) or a stream (`process.stdout`). */
  out?: string | Writable;
  /** Keep `out` (a path), skip the URLs it already has and append the rest. @default false */
  resume?: boolean;
  /** Directory to save each body in (named by a hash of its URL). */
  saveBodies?: string;
  /** Receives every controller decision (e.g. `jsonlSink('events.jsonl')`). */
  events?: EventSink;
  /**
   * Most requests in flight per scope. @default 32
   * With `control`, it sizes only the crawl's window of URLs in progress.
   */
  maxConcurrency?: number;
  /**
   * Builds each scope's algorithms instead of the defaults, as the client's
   * `control` option does (`rate` is then rejected: set it on the algorithms).
   */
  control?: ScopeFactory;
  /** A rate the server documents, requests/s, never exceeded. @default none (learned) */
  rate?: number;
  /** What shares a rate limit: each host, or each registrable domain. @default 'host' */
  scope?: 'host' | 'domain';
  /** Stop admitting after this long, ms, and finish what is in flight. @default Infinity */
  durationMs?: number;
  /** Aborting it stops admitting, as `durationMs` does; the crawl then reports `interrupted`. */
  stop?: AbortSignal;
  /**
   * Aborting it stops admitting and cancels the requests in flight too (their
   * URLs are not written); the crawl reports `interrupted`.
   */
  abort?: AbortSignal;
  /** Called with the crawl's client once it exists, e.g. to report its metrics. */
  onClient?: (client: RatewiseClient) => void;
  /** Called every `progressIntervalMs` and once at the end. */
  onProgress?: (progress: CrawlProgress) => void;
  /** @default 1000 */
  progressIntervalMs?: number;
  /**
   * Further client options: retries, timeouts, `clock`… (`retryBudget`
   * defaults to a reserve of `maxConcurrency`, at most 100). `maxConcurrency`,
   * `control`, `rate`, `scope` and `events` are runCrawl's own options and rejected here.
   */
  client?: Omit<ClientOptions, 'maxConcurrency' | 'control' | 'rate' | 'scope' | 'events'>;
}

/** {@link CrawlOptions} checked, defaults applied. */
export interface CrawlSettings {
  maxConcurrency: number;
  rate: number | undefined;
  resolver: ScopeResolver;
  durationMs: number;
  progressIntervalMs: number;
  clock: Clock;
  /** Requests started and not finished, all scopes together: bounds memory on any input. */
  window: number;
  /** Requests started and not finished per scope, so one slow scope cannot fill the window. */
  scopeWindow: number;
  /** URLs set aside while their scope's window is full, before the input waits. */
  backlog: number;
  /**
   * The client's retry allowance unless `client.retryBudget` says otherwise:
   * a reserve covering one full burst, so when every request in flight is
   * throttled at once (the first overshoot) each may still be retried,
   * instead of the URLs past the default reserve of 10 being given up.
   */
  retryBudget: { reserve: number };
}

const OWNER = 'runCrawl';
/** The client options that runCrawl sets itself. */
const OWN_CLIENT_KEYS = ['maxConcurrency', 'control', 'rate', 'scope', 'events'] as const;
/** Requests kept going per scope, per unit of `maxConcurrency`: every slot busy, as many ready. */
const SCOPE_WINDOW_FACTOR = 2;
/** Requests kept going in all, per unit of `maxConcurrency`: four slow scopes to fill it. */
const WINDOW_FACTOR = 8;
/** URLs held aside for busy scopes: about 1 MB of text, enough to reach the other hosts. */
const BACKLOG_URLS = 10_000;

const isSignal = (value: unknown): value is AbortSignal => value instanceof AbortSignal;
const readOptions = defineOptions<CrawlOptions>()(OWNER, {
  urls: required<CrawlOptions['urls']>('an iterable of URL strings', isIterable),
  total: number(undefined, { min: 0, integer: true }),
  out: check(
    'a file path or a writable stream',
    (value): value is string | Writable => typeof value === 'string' || isWritable(value),
  ),
  resume: custom((value, fail, earlier) => {
    if (value !== undefined && typeof value !== 'boolean') fail('a boolean');
    if (value === true && typeof earlier.out !== 'string')
      fail('false unless `out` is a file path');
    return value as boolean | undefined;
  }),
  saveBodies: check('a directory path', (value): value is string => typeof value === 'string'),
  events: func(undefined, 'an event sink function'),
  maxConcurrency: number(DEFAULT_MAX_CONCURRENCY, { min: 1, integer: true }),
  control: func(undefined, 'a function (scope) => ({ limit, rate, … })'),
  rate: number(undefined, { above: 0 }),
  scope: choice('host', ['host', 'domain']),
  durationMs: number(Infinity, { min: 0, infinite: true }),
  stop: check('an AbortSignal', isSignal),
  abort: check('an AbortSignal', isSignal),
  onProgress: func(),
  onClient: func(),
  progressIntervalMs: number(1000, { min: 1 }),
  client: custom((value): CrawlOptions['client'] => {
    if (value === undefined) return undefined;
    if (typeof value !== 'object' || value === null) {
      throw InvalidOptionError.invalid(OWNER, 'client', value, 'an object of client options');
    }
    const client = value as Record<string, unknown>;
    for (const key of OWN_CLIENT_KEYS) {
      if (client[key] !== undefined) {
        throw InvalidOptionError.invalid(
          OWNER,
          `client.${key}`,
          client[key],
          `left unset (runCrawl sets it: pass \`${key}\` to runCrawl itself)`,
        );
      }
    }
    return value as CrawlOptions['client'];
  }),
});

/** Validates {@link CrawlOptions}; errors name the option, the value and what was expected. */
export function readCrawlOptions(options: CrawlOptions): CrawlSettings {
  const { maxConcurrency, rate, scope, durationMs, progressIntervalMs, client } =
    readOptions(options);
  return {
    maxConcurrency,
    rate,
    resolver: scope === 'domain' ? byDomain : byHost,
    durationMs,
    progressIntervalMs,
    clock: client?.clock ?? systemClock,
    window: WINDOW_FACTOR * maxConcurrency,
    scopeWindow: SCOPE_WINDOW_FACTOR * maxConcurrency,
    backlog: BACKLOG_URLS,
    retryBudget: { reserve: Math.min(100, Math.max(10, maxConcurrency)) },
  };
}

function isIterable(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    (Symbol.asyncIterator in value || Symbol.iterator in value)
  );
}

function isWritable(value: unknown): value is Writable {
  return typeof (value as Writable | null)?.write === 'function';
}
