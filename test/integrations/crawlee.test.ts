import { existsSync } from 'node:fs';
import { Configuration, log } from '@crawlee/core';
import { HttpCrawler } from '@crawlee/http';
import { PlaywrightCrawler } from '@crawlee/playwright';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullJitter } from '../../src/backoff/full-jitter.js';
import {
  keepSessionsOn429,
  type RatewiseCrawlee,
  ratewiseCrawlee,
  retryHttp429,
} from '../../src/integrations/crawlee.js';
import { seededRandom } from '../../src/random.js';
import { fastClock, type TestServer, waitFor } from '../client/helpers.js';
import { eventLog, RETRY_AFTER_FORMS, startScriptedServer } from './scripted-server.js';

const CHROMIUM = '/usr/bin/chromium';
const browserAvailable = existsSync(CHROMIUM) || process.env.CI !== undefined;

let server: TestServer;
beforeAll(async () => {
  log.setLevel(log.LEVELS.OFF);
  server = await startScriptedServer();
});
afterAll(() => server.close());

async function setup() {
  const events = eventLog();
  const ratewise = await ratewiseCrawlee({
    clock: fastClock(10),
    random: seededRandom(1),
    backoff: fullJitter({ baseMs: 10, capMs: 20 }),
    events: events.sink,
  });
  return { ratewise, events };
}

function inflight(ratewise: RatewiseCrawlee): number {
  let total = 0;
  for (const controller of ratewise.registry.controllers()) total += controller.inflight;
  return total;
}

/** An HttpCrawler on ratewise's client, in-memory storage; resolves with the statuses handled. */
async function crawl(ratewise: RatewiseCrawlee, urls: string[], extra = {}): Promise<number[]> {
  const handled: number[] = [];
  const crawler = new HttpCrawler(
    {
      httpClient: ratewise.httpClient,
      ...keepSessionsOn429,
      ...retryHttp429,
      additionalMimeTypes: ['text/plain'],
      maxRequestRetries: 3,
      requestHandler: async ({ response }) => {
        handled.push(response.statusCode ?? 0);
      },
      ...extra,
    },
    new Configuration({ persistStorage: false, purgeOnStart: true }),
  );
  await crawler.run(urls);
  return handled;
}

const samples = (log: ReturnType<typeof eventLog>) => log.events.filter((e) => e.type === 'sample');

describe('ratewise/crawlee httpClient', () => {
  for (const form of Object.keys(RETRY_AFTER_FORMS)) {
    it(`sees a 429 with Retry-After as ${form} before Crawlee does; the retry waits for the scope`, async () => {
      const { ratewise, events } = await setup();
      expect(await crawl(ratewise, [`${server.url}/429/${form}/crawlee`])).toEqual([200]);
      expect(events.events.find((e) => e.type === 'pause')?.reason).toMatch(
        /^paused \d+ ms on 429/,
      );
      expect(samples(events).map((e) => e.status)).toEqual([429, 200]);
      expect(inflight(ratewise)).toBe(0);
      await ratewise.close();
    });
  }

  it('reports a 503, a reset and a timeout; Crawlee retries them', async () => {
    const { ratewise, events } = await setup();
    const handled = await crawl(
      ratewise,
      [`${server.url}/503/crawlee`, `${server.url}/reset/crawlee`, `${server.url}/hang/crawlee`],
      { navigationTimeoutSecs: 2, maxRequestRetries: 2, maxConcurrency: 1 },
    );
    expect(handled).toEqual([200, 200, 200]);
    // One of each (a loaded machine may time out a retry too, hence at least one timeout).
    const kinds = samples(events).map((e) => e.signal);
    expect(kinds.filter((k) => k === 'overloaded' || k === 'reset')).toEqual([
      'overloaded',
      'reset',
    ]);
    expect(kinds).toContain('timeout');
    expect(inflight(ratewise)).toBe(0);
    await ratewise.close();
  }, 30_000);

  it('follows a redirect chain as one attempt', async () => {
    const { ratewise, events } = await setup();
    expect(await crawl(ratewise, [`${server.url}/redirect/3/crawlee`])).toEqual([200]);
    expect(samples(events).map((e) => e.status)).toEqual([200]);
    expect(inflight(ratewise)).toBe(0);
    await ratewise.close();
  });

  it('caps the wait for admission below the navigation timeout: no request sent after Crawlee gave up', async () => {
    // One request at a time; the first one's 429 pauses the scope for 1-2 s (an HTTP date),
    // longer than the 1 s navigation timeout the others wait under.
    const events = eventLog();
    const ratewise = await ratewiseCrawlee({ maxConcurrency: 1, events: events.sink });
    const urls = ['/429/imf-fixdate/cap', '/cap-1', '/cap-2'].map((p) => `${server.url}${p}`);
    const handled = await crawl(ratewise, urls, {
      navigationTimeoutSecs: 1,
      maxRequestRetries: 20,
      maxConcurrency: 3,
    });
    expect(handled).toEqual([200, 200, 200]);
    // Every request sent was read: none went out for a navigation Crawlee had timed out.
    expect(samples(events).map((e) => e.status)).toEqual([429, 200, 200, 200]);
    expect(inflight(ratewise)).toBe(0);
    await ratewise.close();
  }, 60_000);

  it("retries a request that waited in the queue past the cap without using up Crawlee's retries", async () => {
    // One request at a time, 400 ms each; the eighth waits 2.8 s, past half the 4 s navigation
    // timeout. Eight tasks from the start, however busy the machine (see poolOptions).
    const events = eventLog();
    const ratewise = await ratewiseCrawlee({ maxConcurrency: 1, events: events.sink });
    const urls = Array.from({ length: 8 }, (_, i) => `${server.url}/slow/400/queued-${i}`);
    const retried: string[] = [];
    const handled = await crawl(ratewise, urls, {
      navigationTimeoutSecs: 4,
      maxRequestRetries: 0,
      minConcurrency: 8,
      maxConcurrency: 8,
      autoscaledPoolOptions: { desiredConcurrency: 8 },
      errorHandler: (_: unknown, error: Error) => {
        retried.push(error.constructor.name);
      },
    });
    expect(handled).toEqual(Array(8).fill(200));
    expect(retried.length).toBeGreaterThan(0);
    expect(new Set(retried)).toEqual(new Set(['RetryRequestError']));
    expect(samples(events).map((e) => e.status)).toEqual(Array(8).fill(200));
    expect(inflight(ratewise)).toBe(0);
    await ratewise.close();
  }, 60_000);

  it('poolOptions: the pool runs as many tasks as the scope may have in flight from the start', async () => {
    // HttpCrawler's own pool starts at 10 tasks: 12 shows the preset at work.
    const ratewise = await ratewiseCrawlee({ maxConcurrency: 12, initialConcurrency: 12 });
    const open: string[] = [];
    const crawler = new HttpCrawler(
      {
        httpClient: ratewise.httpClient,
        ...ratewise.poolOptions,
        additionalMimeTypes: ['text/plain'],
        requestHandler: async ({ response }) => {
          open.push(String(response.headers['x-open']));
        },
      },
      new Configuration({ persistStorage: false, purgeOnStart: true }),
    );
    // Each request is held until twelve are open at once (after 3 s it is answered anyway).
    await crawler.run(Array.from({ length: 12 }, (_, i) => `${server.url}/gate/12/pool-${i}`));
    expect(open).toEqual(Array(12).fill('12'));
    expect(inflight(ratewise)).toBe(0);
    await ratewise.close();
  });

  it('reports a streamed 429 at its head, before its body is over', async () => {
    const { ratewise, events } = await setup();
    const refused = await ratewise.httpClient.stream({ url: `${server.url}/slow-429/crawlee` });
    expect(refused.statusCode).toBe(429);
    expect(samples(events).map((e) => e.status)).toEqual([429]);
    expect(events.events.find((e) => e.type === 'pause')?.reason).toMatch(/on 429/);
    expect(inflight(ratewise)).toBe(0);
    refused.stream.destroy();
    await ratewise.close();
  });

  it('holds a streamed body until it is destroyed half-way, and releases an aborted one', async () => {
    const { ratewise, events } = await setup();
    const response = await ratewise.httpClient.stream({ url: `${server.url}/big/crawlee` });
    await new Promise<void>((resolve) => response.stream.once('data', () => resolve()));
    expect(inflight(ratewise)).toBe(1);
    response.stream.destroy();
    await waitFor(() => inflight(ratewise) === 0);
    const controller = new AbortController();
    const pending = ratewise.httpClient
      .stream({ url: `${server.url}/hang/crawlee-abort`, signal: controller.signal })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    await waitFor(() => server.seen.some((r) => r.path === '/hang/crawlee-abort'));
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    expect(samples(events).map((e) => e.status)).toEqual([200]);
    expect(inflight(ratewise)).toBe(0);
    await ratewise.close();
  });
});

/** A PlaywrightCrawler on ratewise's navigation hooks over `paths`; resolves with the statuses handled. */
async function browserCrawl(ratewise: RatewiseCrawlee, paths: string[], extra = {}) {
  const handled: number[] = [];
  const crawler = new PlaywrightCrawler(
    {
      ...ratewise.navigationHooks,
      ...keepSessionsOn429,
      maxRequestRetries: 2,
      launchContext: {
        launcher: chromium,
        launchOptions: {
          executablePath: CHROMIUM,
          args: ['--headless', '--no-sandbox', '--disable-gpu'],
        },
      },
      requestHandler: async ({ response }) => {
        handled.push(response?.status() ?? 0);
      },
      ...extra,
    },
    new Configuration({ persistStorage: false, purgeOnStart: true }),
  );
  await crawler.run(paths.map((path) => `${server.url}${path}`));
  return handled.sort();
}

describe.skipIf(!browserAvailable)('ratewise/crawlee navigation hooks', () => {
  it('admits each navigation and reports its response; a 429 with each Retry-After form is retried after the pause', async () => {
    const { ratewise, events } = await setup();
    const forms = Object.keys(RETRY_AFTER_FORMS);
    const paths = [...forms.map((form) => `/429/${form}/crawlee-browser`), '/ok/crawlee-browser'];
    expect(await browserCrawl(ratewise, paths, { maxRequestRetries: 4 })).toEqual(
      Array(forms.length + 1).fill(200),
    );
    const statuses = samples(events).map((e) => e.status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(forms.length);
    expect(statuses.filter((s) => s === 200)).toHaveLength(forms.length + 1);
    expect(inflight(ratewise)).toBe(0);
    await ratewise.close();
  }, 90_000);

  it('reports a 503, a reset and a navigation timeout, each as what it is; Crawlee retries them', async () => {
    const { ratewise, events } = await setup();
    const failed: string[] = [];
    const handled = await browserCrawl(
      ratewise,
      ['/503/crawlee-browser', '/drop/crawlee-browser', '/hang/crawlee-browser'],
      {
        maxRequestRetries: 1,
        // Long enough that a loaded machine still sees the 503 before the navigation times out.
        navigationTimeoutSecs: 10,
        failedRequestHandler: async ({ request }: { request: { url: string } }) => {
          failed.push(new URL(request.url).pathname);
        },
      },
    );
    // The 503 is retried into a 200; the reset happens every time, the hang answers the retry.
    expect(handled).toEqual([200, 200]);
    expect(failed).toEqual(['/drop/crawlee-browser']);
    const kinds = samples(events).map((e) => e.signal);
    expect(kinds.filter((k) => k === 'overloaded')).toEqual(['overloaded']);
    expect(kinds.filter((k) => k === 'reset')).toEqual(['reset', 'reset']);
    expect(kinds).toContain('timeout');
    expect(inflight(ratewise)).toBe(0);
    await ratewise.close();
  }, 90_000);

  it('follows a redirect chain as one navigation', async () => {
    const { ratewise, events } = await setup();
    expect(await browserCrawl(ratewise, ['/redirect/3/crawlee-browser'])).toEqual([200]);
    expect(samples(events).map((e) => e.status)).toEqual([200]);
    expect(inflight(ratewise)).toBe(0);
    await ratewise.close();
  }, 90_000);

  it('reports a navigation Crawlee gives up on (no retry left)', async () => {
    const { ratewise, events } = await setup();
    const handled = await browserCrawl(ratewise, ['/hang/crawlee-browser-final'], {
      maxRequestRetries: 0,
      navigationTimeoutSecs: 2,
    });
    expect(handled).toEqual([]);
    expect(samples(events).map((e) => e.signal)).toEqual(['timeout']);
    expect(inflight(ratewise)).toBe(0);
    await ratewise.close();
  }, 90_000);

  it("releases a navigation aborted by closing its page, with the user's own failedRequestHandler", async () => {
    const { ratewise, events } = await setup();
    const failed: string[] = [];
    const closeSoon = async ({ page }: { page: { close(): Promise<void> } }) => {
      setTimeout(() => void page.close().catch(() => undefined), 300);
    };
    const handled = await browserCrawl(ratewise, ['/hang/crawlee-browser-closed'], {
      maxRequestRetries: 0,
      navigationTimeoutSecs: 20,
      preNavigationHooks: [...ratewise.navigationHooks.preNavigationHooks, closeSoon],
      // The user's handler replaces ratewise's: the closed page still frees the permit.
      failedRequestHandler: async ({ request }: { request: { url: string } }) => {
        failed.push(new URL(request.url).pathname);
      },
    });
    expect(handled).toEqual([]);
    expect(failed).toEqual(['/hang/crawlee-browser-closed']);
    expect(samples(events)).toEqual([]);
    expect(inflight(ratewise)).toBe(0);
    await ratewise.close();
  }, 90_000);
});
