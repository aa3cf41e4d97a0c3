import { createClient, type RatewiseClient } from '../client/client.js';
import { fanout } from '../events/fanout.js';
import { drainBody, prepareBodiesDir, saveBody } from './body-files.js';
import { type CrawlOptions, type CrawlSettings, readCrawlOptions } from './crawl-options.js';
import { every, ProgressMeter } from './crawl-progress.js';
import {
  bodyFailureResult,
  type CrawlResult,
  failureResult,
  malformedResult,
  responseResult,
} from './crawl-result.js';
import { type CrawlSummary, CrawlTally } from './crawl-tally.js';
import { CrawlWindow } from './crawl-window.js';
import { inputUrl, urlProblem } from './line-reader.js';
import { ResultsFile } from './results-file.js';

/** Why admission stopped; requests still waiting reject with it and are not written. */
class Stopped extends Error {}

/** The moving parts of one crawl. */
interface Crawl {
  settings: CrawlSettings;
  options: CrawlOptions;
  client: RatewiseClient;
  tally: CrawlTally;
  results: ResultsFile | undefined;
  completed: ReadonlySet<string>;
  /** Aborted when admission stops (deadline, interrupt). */
  stop: AbortController;
  /** Aborted when the requests in flight are to be cancelled too. */
  cancel: AbortController;
}

/**
 * Fetches every URL of `options.urls` politely and fast: one rate-controlled
 * client (per-scope limits, pacing, breaker, retries), each URL's result
 * appended to `out` as soon as it is done. Any input length runs in bounded
 * memory — at most 8 × `maxConcurrency` requests going, 2 × `maxConcurrency`
 * per scope, and 10 000 URLs set aside for busy scopes — and a slow scope
 * never holds up the others: the input moves on past URLs whose scope is full.
 * A URL whose scope is paused for longer than a request waits (a
 * Retry-After of hours, a quota spent for the day) is set aside at once —
 * not written, listed in the summary, fetched by `--resume` — and the crawl
 * goes on with the rest.
 * When the deadline passes or `stop` aborts, requests still waiting for
 * admission are dropped (not written: `--resume` fetches them later) and those
 * in flight finish; `abort` cancels those too. Resolves with the summary once
 * every file is flushed.
 *
 * ```ts
 * const summary = await runCrawl({ urls: ['https://example.com/a'], out: 'results.jsonl' });
 * ```
 */
export async function runCrawl(options: CrawlOptions): Promise<CrawlSummary> {
  const settings = readCrawlOptions(options);
  const { clock } = settings;
  const tally = new CrawlTally();
  const sinks = options.events ? [tally.sink, options.events] : [tally.sink];
  const client = createClient({
    retryBudget: settings.retryBudget,
    ...options.client,
    ...(options.control
      ? { control: options.control }
      : { maxConcurrency: settings.maxConcurrency }),
    ...(settings.rate === undefined ? {} : { rate: settings.rate }),
    scope: settings.resolver,
    events: fanout(sinks),
  });
  options.onClient?.(client);
  let opened: Awaited<ReturnType<typeof ResultsFile.open>> | undefined;
  try {
    // The bodies' folder first: one that cannot be used must leave `out` as it was.
    if (options.saveBodies !== undefined) await prepareBodiesDir(options.saveBodies);
    opened = await openResults(options);
  } catch (error) {
    await client.close();
    throw error;
  }
  const crawl: Crawl = {
    settings,
    options,
    client,
    tally,
    results: opened?.file,
    completed: opened?.completed ?? new Set(),
    stop: new AbortController(),
    cancel: new AbortController(),
  };
  const started = clock.now();
  let stopped: CrawlSummary['stopped'] = 'done';
  const halt = (why: CrawlSummary['stopped']) => {
    if (crawl.stop.signal.aborted) return;
    stopped = why;
    crawl.stop.abort(new Stopped(`crawl stopped (${why})`));
  };
  const cancelDeadline = Number.isFinite(settings.durationMs)
    ? clock.setTimer(settings.durationMs, () => halt('duration'))
    : undefined;
  const onStop = () => halt('interrupted');
  const onAbort = () => {
    halt('interrupted');
    crawl.cancel.abort(options.abort?.reason);
  };
  options.stop?.addEventListener('abort', onStop, { once: true });
  options.abort?.addEventListener('abort', onAbort, { once: true });
  if (options.stop?.aborted) onStop();
  if (options.abort?.aborted) onAbort();
  const meter = new ProgressMeter(tally, client.registry, options.total, clock);
  const report = () => options.onProgress?.(meter.snapshot(clock.now() - started));
  const cancelProgress = every(clock, settings.progressIntervalMs, report);
  try {
    await feed(crawl);
  } finally {
    cancelDeadline?.();
    cancelProgress();
    options.stop?.removeEventListener('abort', onStop);
    options.abort?.removeEventListener('abort', onAbort);
    await client.close();
    await crawl.results?.close();
  }
  report();
  return tally.summary((clock.now() - started) / 1000, stopped);
}

/** Where the results go: a file (its finished URLs when resuming), a stream, or nowhere. */
async function openResults(
  options: CrawlOptions,
): Promise<{ file: ResultsFile; completed: Set<string> } | undefined> {
  const { out } = options;
  if (out === undefined) return undefined;
  if (typeof out !== 'string') return { file: ResultsFile.toStream(out), completed: new Set() };
  return ResultsFile.open(out, options.resume ?? false);
}

/** Reads the URLs and keeps them going through the window until the input ends or admission stops. */
async function feed(crawl: Crawl): Promise<void> {
  const { tally, completed, stop, settings } = crawl;
  const window = new CrawlWindow(
    settings,
    stop.signal,
    (url) => scopeKey(settings, url),
    async (url) => {
      const result = await fetchOne(crawl, url);
      if (result) await record(crawl, result);
    },
  );
  const iterator = iterate(crawl.options.urls);
  const stopped = new Promise<undefined>((resolve) =>
    stop.signal.addEventListener('abort', () => resolve(undefined), { once: true }),
  );
  try {
    while (!stop.signal.aborted) {
      const next = await Promise.race([iterator.next(), stopped]);
      if (next === undefined || next.done) break;
      const url = inputUrl(next.value);
      if (url === undefined) continue;
      if (completed.has(url)) {
        tally.skipped++;
        continue;
      }
      const problem = urlProblem(url);
      if (problem !== undefined) {
        await record(crawl, malformedResult(url, problem));
        continue;
      }
      window.add(url);
      while (window.full && !stop.signal.aborted) await Promise.race([window.next(), stopped]);
    }
  } finally {
    // Not awaited: after a stop the input may still be waiting for a line that never comes (stdin).
    Promise.resolve(iterator.return?.(undefined)).catch(() => {});
    await window.finish(); // rethrows a failed write
  }
}

/**
 * Fetches one URL to the end; `undefined` when it was dropped by the stop or
 * cancelled, or set aside because its scope is paused for too long.
 */
async function fetchOne(crawl: Crawl, url: string): Promise<CrawlResult | undefined> {
  const { client, options, stop, cancel } = crawl;
  let response: Response;
  try {
    response = await client.fetch(url, {
      signal: cancel.signal,
      ratewise: { admitSignal: stop.signal },
    });
  } catch (error) {
    if (error instanceof Stopped || cancel.signal.aborted) return undefined;
    if (crawl.tally.setAside.add(url, error, crawl.settings.clock.wallNow())) return undefined;
    return failureResult(url, error);
  }
  try {
    if (options.saveBodies === undefined) {
      await drainBody(response);
      return responseResult(url, response);
    }
    return responseResult(url, response, await saveBody(response, options.saveBodies, url));
  } catch (error) {
    return cancel.signal.aborted ? undefined : bodyFailureResult(url, response, error);
  }
}

async function record(crawl: Crawl, result: CrawlResult): Promise<void> {
  await crawl.results?.append(result);
  crawl.tally.record(result);
}

function iterate(urls: CrawlOptions['urls']): AsyncIterator<string> | Iterator<string> {
  return Symbol.asyncIterator in urls ? urls[Symbol.asyncIterator]() : urls[Symbol.iterator]();
}

/** The scope (or scopes) a URL is admitted by, as one key for the window. */
function scopeKey(settings: CrawlSettings, url: string): string {
  const scopes = settings.resolver({ url: new URL(url) });
  return typeof scopes === 'string' ? scopes : scopes.join(' ');
}
