import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RatewisePlaywright, ratewisePlaywright } from '../../src/integrations/playwright.js';
import { fastClock, type TestServer, waitFor } from '../client/helpers.js';
import { eventLog, RETRY_AFTER_FORMS, startScriptedServer } from './scripted-server.js';

/** Debian's Chromium; playwright never downloads its own. Locally skipped without it; never in CI. */
const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM) || process.env.CI !== undefined;

let server: TestServer;
let browser: Browser;
beforeAll(async () => {
  server = await startScriptedServer();
  if (available) {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
  }
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server.close();
});

function setup() {
  const log = eventLog();
  const ratewise = ratewisePlaywright({ clock: fastClock(10), events: log.sink });
  return { ratewise, log };
}

function inflight(ratewise: RatewisePlaywright): number {
  let total = 0;
  for (const controller of ratewise.registry.controllers()) total += controller.inflight;
  return total;
}

const samples = (log: ReturnType<typeof eventLog>) => log.events.filter((e) => e.type === 'sample');

describe.skipIf(!available)('ratewise/playwright goto', () => {
  for (const form of Object.keys(RETRY_AFTER_FORMS)) {
    it(`reports a 429 with Retry-After as ${form}; the next navigation waits out the pause`, async () => {
      const { ratewise, log } = setup();
      const page = await browser.newPage();
      const first = await ratewise.goto(page, `${server.url}/429/${form}/pw`);
      expect(first?.status()).toBe(429);
      expect(log.events.find((e) => e.type === 'pause')?.reason).toMatch(/^paused \d+ ms on 429/);
      const second = await ratewise.goto(page, `${server.url}/429/${form}/pw`);
      expect(second?.status()).toBe(200);
      const [a, b] = samples(log);
      expect([a?.status, b?.status]).toEqual([429, 200]);
      expect(b?.timings?.ttfbMs).toBeGreaterThanOrEqual(0);
      expect(inflight(ratewise)).toBe(0);
      await page.close();
      await ratewise.close();
    });
  }

  it('reports a 503 and a reset, each as what it is', async () => {
    const { ratewise, log } = setup();
    const page = await browser.newPage();
    expect((await ratewise.goto(page, `${server.url}/503/pw`))?.status()).toBe(503);
    await expect(ratewise.goto(page, `${server.url}/drop/pw`)).rejects.toThrow(/net::ERR_/);
    expect(samples(log).map((e) => e.signal)).toEqual(['overloaded', 'reset']);
    expect(inflight(ratewise)).toBe(0);
    await page.close();
    await ratewise.close();
  });

  it("reports Playwright's navigation timeout as a timeout", async () => {
    const { ratewise, log } = setup();
    const page = await browser.newPage();
    const pending = ratewise.goto(page, `${server.url}/hang/pw-timeout`, { timeout: 300 });
    await expect(pending).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(samples(log).map((e) => e.signal)).toEqual(['timeout']);
    expect(inflight(ratewise)).toBe(0);
    await page.close();
    await ratewise.close();
  });

  it('fails fast, sending nothing, when the wait for admission would outlast the timeout', async () => {
    const { ratewise } = setup();
    const page = await browser.newPage();
    expect((await ratewise.goto(page, `${server.url}/429/seconds/pw-cap`))?.status()).toBe(429);
    const before = server.seen.length;
    const capped = ratewise.goto(page, `${server.url}/ok/pw-cap`, { timeout: 300 });
    await expect(capped).rejects.toMatchObject({ code: 'ERR_RATEWISE_SCOPE_PAUSED' });
    expect(server.seen.length).toBe(before);
    expect(inflight(ratewise)).toBe(0);
    await page.close();
    await ratewise.close();
  });

  it('releases a navigation aborted by closing its page', async () => {
    const { ratewise, log } = setup();
    const page = await browser.newPage();
    const pending = ratewise.goto(page, `${server.url}/hang/pw-abort`).then(
      () => undefined,
      (error: unknown) => error,
    );
    await waitFor(() => server.seen.some((r) => r.path === '/hang/pw-abort'));
    await page.close();
    expect(await pending).toBeInstanceOf(Error);
    expect(samples(log)).toEqual([]);
    expect(inflight(ratewise)).toBe(0);
    await ratewise.close();
  });

  it('reports the final response of a redirect chain', async () => {
    const { ratewise, log } = setup();
    const page = await browser.newPage();
    const response = await ratewise.goto(page, `${server.url}/redirect/3/pw`);
    expect(response?.status()).toBe(200);
    expect(samples(log).map((e) => e.status)).toEqual([200]);
    expect(inflight(ratewise)).toBe(0);
    await page.close();
    await ratewise.close();
  });
});
