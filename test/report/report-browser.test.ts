import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { writeReport } from '../../src/report/write-report.js';

/** Debian's Chromium (`apt-get install -y chromium`); playwright never downloads its own. */
const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
// Locally the test is skipped without Chromium; in CI a missing browser is a failure.
const available = existsSync(CHROMIUM) || process.env.CI !== undefined;

const dir = mkdtempSync(join(tmpdir(), 'ratewise-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 120 s of a ratewise event log: limit grows then halves on a 429 burst, latency climbs, one alarm. */
function eventLog(): string {
  const wall0 = Date.parse('2026-01-31T04:00:00Z');
  const lines: string[] = [];
  let limit = 4;
  for (let i = 0; i < 1200; i++) {
    const t = i * 100;
    const throttled = i >= 800 && i < 820;
    if (i % 100 === 0 && !throttled) limit++;
    if (i === 800) limit = Math.ceil(limit / 2);
    const base = {
      t,
      wall: wall0 + t,
      scope: 'host:store.example',
      limit,
      rate: i >= 800 ? 8 : null,
      inflight: Math.min(limit, 6),
      queued: 2,
    };
    const rttMs = 100 + i / 4;
    lines.push(
      JSON.stringify({
        ...base,
        type: 'sample',
        reason: throttled ? '429' : 'ok',
        signal: throttled ? 'throttled' : 'ok',
        status: throttled ? 429 : 200,
        rttMs,
      }),
    );
    if (i === 700) lines.push(JSON.stringify({ ...base, type: 'alarm', reason: 'latency alarm' }));
  }
  return `${lines.join('\n')}\n`;
}

type Rgb = [number, number, number];

interface ReportStatus {
  ready: boolean;
  errors: string[];
  charts: { id: string; points: number; lengths: number[]; values: number[]; yMin: number[] }[];
}

/** The few browser globals the checks use (the project compiles without the DOM library). */
interface Page2d {
  __ratewiseReport?: ReportStatus;
  document: {
    querySelector(selector: string): {
      width: number;
      height: number;
      getContext(kind: '2d'): {
        getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
      };
    };
  };
}

/** Runs in the page: painted pixels of a chart's canvas, and those near the series and alarm colours. */
function countPixels(args: { id: string; rgb: Rgb; alarm: Rgb }) {
  const canvas = (globalThis as unknown as Page2d).document.querySelector(`#${args.id} canvas`);
  const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  const near = (i: number, [r, g, b]: Rgb) =>
    Math.abs((pixels[i] as number) - r) +
      Math.abs((pixels[i + 1] as number) - g) +
      Math.abs((pixels[i + 2] as number) - b) <
    30;
  let painted = 0;
  let series = 0;
  let alarm = 0;
  for (let i = 0; i < pixels.length; i += 4) {
    if ((pixels[i + 3] as number) === 0) continue;
    painted++;
    if (near(i, args.rgb)) series++;
    if (near(i, args.alarm)) alarm++;
  }
  return { painted, series, alarm, width: canvas.width };
}

/** Waits until the page is ready and every chart was drawn once (its y-axes' ranges known). */
async function drawnStatus(page: Page): Promise<ReportStatus> {
  const ready = () => {
    const status = (globalThis as unknown as Page2d).__ratewiseReport;
    return status?.ready === true && status.charts.every((c) => c.yMin.length > 0);
  };
  await page.waitForFunction(ready, undefined, { timeout: 10_000 });
  const report = () => (globalThis as unknown as Page2d).__ratewiseReport;
  return (await page.evaluate(report)) as ReportStatus;
}

describe.skipIf(!available)('report in headless Chromium', () => {
  it('renders every chart with the log data, offline and without errors', async () => {
    const log = join(dir, 'events.jsonl');
    writeFileSync(log, eventLog());
    const out = join(dir, 'report.html');
    const written = await writeReport({ log, out, windowS: 10 });
    expect(written.bucketS).toBe(1);
    expect(written.points).toBe(120);

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
      const problems: string[] = [];
      const requests: string[] = [];
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('request', (r) => requests.push(r.url()));
      await page.goto(pathToFileURL(out).href);
      const status = await drawnStatus(page);
      expect(problems).toEqual([]);
      expect(requests).toEqual([pathToFileURL(out).href]); // the page itself, nothing from the network
      expect(status).toMatchObject({ ready: true, errors: [] });
      const { charts } = status;
      expect(charts.map((c) => c.id)).toEqual([
        'chart-throughput',
        'chart-latency',
        'chart-control',
      ]);
      for (const c of charts) {
        expect(c.points).toBe(120);
        expect(c.lengths.every((n) => n === 120)).toBe(true);
        expect(c.yMin.length, c.id).toBeGreaterThan(0);
        expect(
          c.yMin.every((min) => min === 0),
          `${c.id} y-axes start at zero`,
        ).toBe(true);
      }
      // rps and p95 in every bucket; 429 markers only in the burst's buckets; limit, in flight, rate.
      expect(charts[0]?.values).toEqual([120, 2, 0]);
      expect(charts[1]?.values).toEqual([120, 120]);
      expect(charts[2]?.values).toEqual([120, 120, 40]);

      // Pixels: each canvas shows its first series' colour over many pixels (a line was drawn).
      const colours: Record<string, Rgb> = {
        'chart-throughput': [31, 119, 180],
        'chart-latency': [44, 160, 44],
        'chart-control': [140, 86, 75],
      };
      for (const [id, rgb] of Object.entries(colours)) {
        const counts = await page.evaluate(countPixels, { id, rgb, alarm: [214, 39, 40] as Rgb });
        expect(counts.width, id).toBeGreaterThan(300);
        expect(counts.series, id).toBeGreaterThan(200);
        expect(counts.painted, id).toBeGreaterThan(counts.series);
        // The alarm at +70 s is a dashed red line across the plot (the latency chart's p95 is red too).
        if (id === 'chart-throughput') expect(counts.alarm).toBeGreaterThan(50);
      }
      const html = readFileSync(out, 'utf8');
      expect(html).toContain("default-src 'none'");
      expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('draws a compared run beside the log, both from zero', async () => {
    const log = join(dir, 'events.jsonl');
    writeFileSync(log, eventLog());
    const other = join(dir, 'other.log');
    const start = Date.parse('2026-01-31T05:00:00Z');
    const lines = Array.from({ length: 600 }, (_, i) => {
      const at = new Date(start + i * 100).toISOString();
      return `${at} http://store.example/${i} 120 ${i % 3 === 0 ? 429 : 200}`;
    });
    writeFileSync(other, `${lines.join('\n')}\n`);
    const out = join(dir, 'compared.html');
    await writeReport({ log, out, compare: { log: other, label: 'naive' } });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
      await page.goto(pathToFileURL(out).href);
      const status = await drawnStatus(page);
      expect(status.errors).toEqual([]);
      const compare = status.charts[0];
      expect(compare?.id).toBe('chart-compare');
      // 120 s of the log, 60 s of the other: ok/s of each where it ran, the other's 429s every second.
      expect(compare?.points).toBe(120);
      expect(compare?.values).toEqual([120, 60, 2, 60]);
      expect(compare?.yMin).toEqual([0, 0]);
      const grey = await page.evaluate(countPixels, {
        id: 'chart-compare',
        rgb: [127, 127, 127] as Rgb,
        alarm: [214, 39, 40] as Rgb,
      });
      expect(grey.series).toBeGreaterThan(100);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
