import type { ClientOptions } from '../client/options.js';
import { type Clock, systemClock } from '../clock.js';
import { byDomain, byHost, type ScopeResolver } from '../controller/resolvers.js';
import { InvalidOptionError } from '../errors.js';
import type { EventSink } from '../events/event.js';
import { choiceOption, numberOption, rejectUnknownOptions } from '../options.js';
import type { CrawlProgress } from './crawl-progress.js';

/** Options of {@link runCrawl}. */
export interface CrawlOptions {
  /** The URLs, one per item; blank items and `#` comments are skipped. */
  urls: AsyncIterable<string> | Iterable<string>;
  /** How many items `urls` has, when known (for the progress). */
  total?: number;
  /** Results file: one JSON line per finished URL. */
  out?: string;
  /** Keep `out`, skip the URLs it already has and append the rest. @default false */
  resume?: boolean;
  /** Directory to save each body in (named by a hash of its URL). */
  saveBodies?: string;
  /** Receives every controller decision (e.g. `jsonlSink('events.jsonl')`). */
  events?: EventSink;
  /** Most requests in flight per scope. @default 32 */
  maxConcurrency?: number;
  /** A rate the server documents, requests/s, never exceeded. @default none (learned) */
  rate?: number;
  /** What shares a rate limit: each host, or each registrable domain. @default 'host' */
  scope?: 'host' | 'domain';
  /** Stop admitting after this many seconds, finish what is in flight. @default Infinity */
  durationS?: number;
  /** Aborting it stops admitting, as `durationS` does; the crawl then reports `interrupted`. */
  stop?: AbortSignal;
  /** Aborting it also cancels the requests in flight (their URLs are not written). */
  abort?: AbortSignal;
  /** Called every `progressIntervalMs` and once at the end. */
  onProgress?: (progress: CrawlProgress) => void;
  /** @default 1000 */
  progressIntervalMs?: number;
  /** Further client options: retries, timeouts, `clock`… (`retryBudget` defaults to a reserve of `maxConcurrency`, at most 100). */
  client?: Omit<ClientOptions, 'maxConcurrency' | 'rate' | 'scope' | 'events'>;
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
  'rate',
  'scope',
  'durationS',
  'stop',
  'abort',
  'onProgress',
  'progressIntervalMs',
  'client',
] as const;
/** Requests kept going per unit of `maxConcurrency`: enough to keep every slot busy. */
const WINDOW_FACTOR = 4;

/** Validates {@link CrawlOptions}; errors name the option, the value and what was expected. */
export function readCrawlOptions(options: CrawlOptions): CrawlSettings {
  rejectUnknownOptions(OWNER, options, KNOWN);
  const urls = options.urls as unknown;
  if (
    typeof urls !== 'object' ||
    urls === null ||
    !(Symbol.asyncIterator in urls || Symbol.iterator in urls)
  ) {
    throw InvalidOptionError.invalid(OWNER, 'urls', urls, 'an iterable of URL strings');
  }
  const maxConcurrency = numberOption(OWNER, 'maxConcurrency', options.maxConcurrency, 32, {
    min: 1,
    integer: true,
  });
  const rate =
    options.rate === undefined
      ? undefined
      : numberOption(OWNER, 'rate', options.rate, 0, { min: Number.MIN_VALUE });
  const scope = choiceOption(OWNER, 'scope', options.scope, 'host', ['host', 'domain']);
  const durationS = numberOption(OWNER, 'durationS', options.durationS, Infinity, {
    min: 0,
    infinite: true,
  });
  return {
    maxConcurrency,
    rate,
    resolver: scope === 'domain' ? byDomain : byHost,
    durationMs: durationS * 1000,
    progressIntervalMs: numberOption(
      OWNER,
      'progressIntervalMs',
      options.progressIntervalMs,
      1000,
      {
        min: 1,
      },
    ),
    clock: options.client?.clock ?? systemClock,
    window: WINDOW_FACTOR * maxConcurrency,
  };
}
