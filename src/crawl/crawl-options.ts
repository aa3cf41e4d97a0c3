import type { Writable } from 'node:stream';
import type { RatewiseClient } from '../client/client.js';
import type { ClientOptions } from '../client/options.js';
import { type Clock, systemClock } from '../clock.js';
import { DEFAULT_MAX_CONCURRENCY } from '../controller/defaults.js';
import type { ScopeFactory } from '../controller/registry.js';
import { byDomain, byHost, type ScopeResolver } from '../controller/resolvers.js';
import { InvalidOptionError } from '../errors.js';
import type { EventSink } from '../events/event.js';
import { choiceOption, numberOption, rejectUnknownOptions } from '../options.js';
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
const KNOWN = [
  'urls',
  'total',
  'out',
  'resume',
  'saveBodies',
  'events',
  'maxConcurrency',
  'control',
  'rate',
  'scope',
  'durationMs',
  'stop',
  'abort',
  'onProgress',
  'onClient',
  'progressIntervalMs',
  'client',
] as const;
/** The client options that runCrawl sets itself. */
const OWN_CLIENT_KEYS = ['maxConcurrency', 'control', 'rate', 'scope', 'events'] as const;
/** Requests kept going per scope, per unit of `maxConcurrency`: every slot busy, as many ready. */
const SCOPE_WINDOW_FACTOR = 2;
/** Requests kept going in all, per unit of `maxConcurrency`: four slow scopes to fill it. */
const WINDOW_FACTOR = 8;
/** URLs held aside for busy scopes: about 1 MB of text, enough to reach the other hosts. */
const BACKLOG_URLS = 10_000;

/** Validates {@link CrawlOptions}; errors name the option, the value and what was expected. */
export function readCrawlOptions(options: CrawlOptions): CrawlSettings {
  if (typeof options !== 'object' || options === null) {
    throw InvalidOptionError.invalid(OWNER, 'options', options, 'an object');
  }
  rejectUnknownOptions(OWNER, options, KNOWN);
  checkKinds(options);
  const maxConcurrency = numberOption(
    OWNER,
    'maxConcurrency',
    options.maxConcurrency,
    DEFAULT_MAX_CONCURRENCY,
    { min: 1, integer: true },
  );
  const scope = choiceOption(OWNER, 'scope', options.scope, 'host', ['host', 'domain']);
  const durationMs = numberOption(OWNER, 'durationMs', options.durationMs, Infinity, {
    min: 0,
    infinite: true,
  });
  numberOption(OWNER, 'total', options.total, 0, { min: 0, integer: true });
  return {
    maxConcurrency,
    rate:
      options.rate === undefined
        ? undefined
        : numberOption(OWNER, 'rate', options.rate, 0, { above: 0 }),
    resolver: scope === 'domain' ? byDomain : byHost,
    durationMs,
    progressIntervalMs: numberOption(
      OWNER,
      'progressIntervalMs',
      options.progressIntervalMs,
      1000,
      { min: 1 },
    ),
    clock: options.client?.clock ?? systemClock,
    window: WINDOW_FACTOR * maxConcurrency,
    scopeWindow: SCOPE_WINDOW_FACTOR * maxConcurrency,
    backlog: BACKLOG_URLS,
    retryBudget: { reserve: Math.min(100, Math.max(10, maxConcurrency)) },
  };
}

/** Checks the options that are not numbers or choices. */
function checkKinds(options: CrawlOptions): void {
  const urls = options.urls as unknown;
  if (
    typeof urls !== 'object' ||
    urls === null ||
    !(Symbol.asyncIterator in urls || Symbol.iterator in urls)
  ) {
    throw InvalidOptionError.invalid(OWNER, 'urls', urls, 'an iterable of URL strings');
  }
  if (options.out !== undefined && typeof options.out !== 'string' && !isWritable(options.out)) {
    throw InvalidOptionError.invalid(OWNER, 'out', options.out, 'a file path or a writable stream');
  }
  if (options.resume === true && typeof options.out !== 'string') {
    throw InvalidOptionError.invalid(OWNER, 'resume', true, 'false unless `out` is a file path');
  }
  expect('saveBodies', options.saveBodies, 'string', 'a directory path');
  expect('resume', options.resume, 'boolean', 'a boolean');
  expect('events', options.events, 'function', 'an event sink function');
  expect('onProgress', options.onProgress, 'function', 'a function');
  expect('control', options.control, 'function', 'a function (scope) => ({ limit, rate, … })');
  expect('onClient', options.onClient, 'function', 'a function');
  for (const name of ['stop', 'abort'] as const) {
    const signal = options[name];
    if (signal !== undefined && !(signal instanceof AbortSignal)) {
      throw InvalidOptionError.invalid(OWNER, name, signal, 'an AbortSignal');
    }
  }
  const client = options.client as Record<string, unknown> | undefined;
  if (client === undefined) return;
  if (typeof client !== 'object' || client === null) {
    throw InvalidOptionError.invalid(OWNER, 'client', client, 'an object of client options');
  }
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
}

function isWritable(value: unknown): value is Writable {
  return typeof (value as Writable | null)?.write === 'function';
}

function expect(name: string, value: unknown, type: string, expected: string): void {
  if (value !== undefined && typeof value !== type) {
    throw InvalidOptionError.invalid(OWNER, name, value, expected);
  }
}
