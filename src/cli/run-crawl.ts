import { setMaxListeners } from 'node:events';
import { createClient, type RatewiseClient } from '../client/client.js';
import type { CancelTimer } from '../clock.js';
import { fanout } from '../events/fanout.js';
import { drainBody, saveBody } from './body-files.js';
import { type CrawlOptions, type CrawlSettings, readCrawlOptions } from './crawl-options.js';
import { ProgressMeter } from './crawl-progress.js';
import {
  type CrawlResult,
  failureResult,
  malformedResult,
  responseResult,
} from './crawl-result.js';
import { type CrawlSummary, CrawlTally } from './crawl-tally.js';
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
 * client (per-scope limits, pacing, breaker, retries), at most 4 ×
 * `maxConcurrency` requests started at a time so any input length runs in
 * bounded memory, each URL's result appended to `out` as soon as it is done.
 * When the deadline passes or `stop` aborts, requests still waiting for
 * admission are dropped (not written: `--resume` fetches them later) and those
 * in flight finish. Resolves with the summary once every file is flushed.
 *
 * ```ts
 * const summary = await runCrawl({ urls: ['https://example.com/a'], out: 'results.jsonl' });
 * ```
 */
export async function runCrawl(options: CrawlOptions): Promise<CrawlSummary> {
  const settings = readCrawlOptions(options);
  const { clock } = settings;
  const opened = options.out
    ? await ResultsFile.open(options.out, options.resume ?? false)
    : undefined;
  const tally = new CrawlTally();
  const sinks = options.events ? [tally.sink, options.events] : [tally.sink];
  const client = createClient({
    retryBudget: crawlRetryBudget(settings.maxConcurrency),
    ...options.client,
    maxConcurrency: settings.maxConcurrency,
    ...(settings.rate === undefined ? {} : { rate: settings.rate }),
    scope: settings.resolver,
    events: fanout(sinks),
  });
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
  // Every request waiting or in flight listens to these two.
  setMaxListeners(0, crawl.stop.signal, crawl.cancel.signal);
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
  const onAbort = () => crawl.cancel.abort(options.abort?.reason);
  options.stop?.addEventListener('abort', onStop, { once: true });
  options.abort?.addEventListener('abort', onAbort, { once: true });
  if (options.stop?.aborted) onStop();
  if (options.abort?.aborted) onAbort();
  const meter = new ProgressMeter(tally, client.registry, options.total);
  const report = () => options.onProgress?.(meter.snapshot(clock.now() - started));
  const cancelProgress = repeat(settings, report);
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

/** Reads the URLs and keeps up to `window` of them going until the input ends or admission stops. */
async function feed(crawl: Crawl): Promise<void> {
  const { tally, completed, stop, settings } = crawl;
  const pending = new Set<Promise<void>>();
  const iterator = iterate(crawl.options.urls);
  const stopped = new Promise<undefined>((resolve) =>
    stop.signal.addEventListener('abort', () => resolve(undefined), { once: true }),
  );
  try {
    while (!stop.signal.aborted) {
      const next = await Promise.race([iterator.next(), stopped]);
      if (next === undefined || next.done) break;
      const url = next.value.trim();
      if (url === '' || url.startsWith('#')) continue;
      if (completed.has(url)) {
        tally.skipped++;
        continue;
      }
      if (!isHttpUrl(url)) {
        await record(crawl, malformedResult(url));
        continue;
      }
      while (pending.size >= settings.window) await Promise.race(pending);
      if (stop.signal.aborted) break;
      const task: Promise<void> = fetchOne(crawl, url)
        .then((result) => (result ? record(crawl, result) : undefined))
        .finally(() => pending.delete(task));
      pending.add(task);
    }
  } finally {
    // Not awaited: after a stop the input may still be waiting for a line that never comes (stdin).
    Promise.resolve(iterator.return?.(undefined)).catch(() => {});
    await Promise.allSettled(pending);
  }
  await Promise.all(pending); // rethrows a failed write
}

/** Fetches one URL to the end; `undefined` when it was dropped by the stop or cancelled. */
async function fetchOne(crawl: Crawl, url: string): Promise<CrawlResult | undefined> {
  const { client, options, stop, cancel } = crawl;
  try {
    const response = await client.fetch(url, {
      signal: cancel.signal,
      ratewise: { admitSignal: stop.signal },
    });
    if (options.saveBodies === undefined) {
      await drainBody(response);
      return responseResult(url, response);
    }
    return responseResult(url, response, await saveBody(response, options.saveBodies, url));
  } catch (error) {
    if (error instanceof Stopped || cancel.signal.aborted) return undefined;
    return failureResult(url, error);
  }
}

async function record(crawl: Crawl, result: CrawlResult): Promise<void> {
  await crawl.results?.append(result);
  crawl.tally.record(result);
}

function iterate(urls: CrawlOptions['urls']): AsyncIterator<string> | Iterator<string> {
  return Symbol.asyncIterator in urls ? urls[Symbol.asyncIterator]() : urls[Symbol.iterator]();
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * A retry allowance whose reserve covers one full burst: when every request
 * in flight is throttled at once (the first overshoot), each may still be
 * retried, instead of the URLs past the default reserve of 10 being given up.
 */
function crawlRetryBudget(maxConcurrency: number) {
  return { reserve: Math.min(100, Math.max(10, maxConcurrency)) };
}

/** Calls `tick` every `progressIntervalMs` until cancelled. */
function repeat(settings: CrawlSettings, tick: () => void): CancelTimer {
  let cancel: CancelTimer = () => {};
  const arm = () => {
    cancel = settings.clock.setTimer(settings.progressIntervalMs, () => {
      tick();
      arm();
    });
  };
  arm();
  return () => cancel();
}
