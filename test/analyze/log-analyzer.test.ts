import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAnalysis } from '../../src/analyze/format-analysis.js';
import { analyzeLines, LogAnalyzer } from '../../src/analyze/log-analyzer.js';
import { analyzeLog } from '../../src/analyze/read-log.js';
import { buildReportData } from '../../src/report/report-data.js';
import { windowsHtml } from '../../src/report/summary-html.js';
import { closedLoop, plainLines } from './synthetic.js';

const TEN_MIN = 600;

describe('analyze: diagnosis on synthetic closed-loop logs', () => {
  it('healthy: steady latency and workers, no alarms', () => {
    const a = analyzeLines(
      plainLines(closedLoop({ durationS: TEN_MIN, workers: () => 8, latencyMs: () => 200 })),
      { windowS: 60 },
    );
    expect(a.alarms).toEqual([]);
    expect(a.diagnosis.verdict).toBe('healthy');
    expect(a.windows).toHaveLength(11);
    expect(a.windows[3]?.rps).toBeCloseTo(40, 0);
    expect(a.totals.rps).toBeCloseTo(40, 0);
  });

  it("soft throttling: latency climbs at constant concurrency; alarms fire and it is the target's doing", () => {
    const run = closedLoop({
      durationS: TEN_MIN,
      workers: () => 8,
      latencyMs: (s) => 200 + (1000 * s) / TEN_MIN,
    });
    const a = analyzeLines(plainLines(run), { windowS: 60 });
    const raised = a.alarms.filter((x) => x.transition === 'alarm');
    expect(raised.map((x) => x.source).sort()).toEqual(['latency', 'per-request', 'throughput']);
    expect(raised.find((x) => x.source === 'throughput')?.side).toBe('target-side');
    expect(a.diagnosis.verdict).toBe('soft-throttling');
    // The rolling rate falls by two thirds, window by window.
    const rps = a.windows.slice(0, -1).map((w) => w.rps);
    expect(rps[0]).toBeGreaterThan(30);
    expect(rps.at(-1)).toBeLessThan(8);
    for (let i = 1; i < rps.length; i++) expect(rps[i]).toBeLessThan(rps[i - 1] as number);
  });

  it('look inward: throughput falls because we send less, latency holds', () => {
    const run = closedLoop({
      durationS: TEN_MIN,
      workers: (s) => (s < 300 ? 8 : 2),
      latencyMs: () => 200,
    });
    const a = analyzeLines(plainLines(run), { windowS: 60 });
    expect(a.alarms.map((x) => [x.source, x.transition, x.side])).toEqual([
      ['throughput', 'alarm', 'look-inward'],
    ]);
    expect(a.diagnosis.verdict).toBe('look-inward');
    expect(a.diagnosis.findings[0]).toMatch(/latency held/);
  });

  it('hard throttling: 10 % 429s are counted per window and named first', () => {
    const run = closedLoop({
      durationS: 120,
      workers: () => 4,
      latencyMs: () => 100,
      status: (s, i) => (s > 30 && i % 10 === 0 ? 429 : 200),
    });
    const a = analyzeLines(plainLines(run), { windowS: 30 });
    expect(a.windows[0]?.throttled).toBe(0);
    expect(a.windows[2]?.throttled).toBeGreaterThan(100);
    expect(a.diagnosis.verdict).toBe('hard-throttling');
    expect(a.diagnosis.findings[0]).toMatch(/× 429 .* the first at \+3\d(\.\d+)? s/);
  });

  it('a stall raises the throughput alarm when it happens, not when traffic resumes', () => {
    const run = closedLoop({ durationS: 400, workers: () => 4, latencyMs: () => 100 });
    const lines = plainLines(
      run.filter((r) => r.at - (run[0]?.at ?? 0) < 200_000 || r.at - (run[0]?.at ?? 0) > 350_000),
    );
    const a = analyzeLines(lines, { windowS: 10 });
    const alarm = a.alarms.find((x) => x.source === 'throughput' && x.transition === 'alarm');
    const offset = ((alarm?.at ?? 0) - (a.span?.start ?? 0)) / 1000;
    expect(offset).toBeGreaterThan(200);
    expect(offset).toBeLessThan(230);
    // The stall covers 200 s to 350 s: the window with the alarm is a row, each empty run around it one row.
    const stalls = a.windows.filter((w) => w.requests === 0);
    expect(stalls.map((w) => [w.offsetS, w.durationMs, w.alarms])).toEqual([
      [200, 10_000, 0],
      [210, 10_000, 1],
      [220, 130_000, 0],
    ]);
  });

  it('too little data says so', () => {
    const a = analyzeLines(['2026-01-31T04:00:00Z https://a.example/ 10', 'junk']);
    expect(a.diagnosis.verdict).toBe('insufficient-data');
    expect(a.lines).toMatchObject({ total: 2, malformed: 1 });
  });
});

describe('analyze: ratewise event logs', () => {
  it('uses sample events as requests on the wall-clock axis and the other events as controller state', () => {
    const wall0 = Date.parse('2026-01-31T04:00:00Z');
    const lines: string[] = [];
    for (let i = 0; i < 100; i++) {
      const t = 50_000 + i * 100;
      const base = {
        t,
        wall: wall0 + i * 100 + (i % 3),
        scope: 'host:a.example',
        limit: 4 + Math.floor(i / 50),
        rate: null,
        inflight: 3,
        queued: 0,
      };
      lines.push(
        JSON.stringify({
          ...base,
          type: 'sample',
          reason: 'ok',
          signal: i === 70 ? 'throttled' : 'ok',
          status: i === 70 ? 429 : 200,
          rttMs: 80,
        }),
      );
      if (i === 50)
        lines.push(JSON.stringify({ ...base, type: 'limit', reason: '+1 per round trip' }));
    }
    lines.push(
      JSON.stringify({
        t: 60_000,
        wall: 0,
        scope: 'host:a.example',
        type: 'alarm',
        limit: 5,
        rate: null,
        inflight: 0,
        queued: 0,
        reason: 'latency alarm',
      }),
    );
    const a = analyzeLines(lines, { windowS: 5 });
    expect(a.lines.byFormat).toEqual({ event: 102, result: 0, plain: 0 });
    expect(a.totals.requests).toBe(100);
    expect(a.span?.start).toBe(wall0);
    expect(a.windows.map((w) => w.limit)).toEqual([4, 5, 5]);
    expect(a.windows[0]?.inflightMax).toBe(3);
    expect(a.windows[1]?.throttled).toBe(1);
    expect(a.alarms).toEqual([
      expect.objectContaining({ source: 'controller', transition: 'alarm', at: wall0 + 10_000 }),
    ]);
    expect(a.windows[2]?.alarms).toBe(1);
    const text = formatAnalysis(a);
    expect(text).toMatch(/limit\s+inflight\s+rate/);
    expect(text).toMatch(/controller alarm: latency alarm/);
  });

  it('finds a tarpit in crawl results with timings', () => {
    const lines = Array.from({ length: 200 }, (_, i) => {
      const wait = i < 100 ? 50 : 600;
      const timings = {
        dnsMs: 2,
        connectMs: 3,
        tlsMs: 10,
        ttfbMs: 15 + wait,
        totalMs: 25 + wait,
        bytes: 1000,
      };
      return JSON.stringify({
        url: `https://a.example/${i}`,
        status: 200,
        signal: 'ok',
        attempts: 1,
        timings,
        at: 1_000_000 + i * 500,
      });
    });
    const a = analyzeLines(lines, { windowS: 20 });
    expect(a.phases?.verdict).toBe('tarpit');
    expect(a.windows[0]?.phases?.waitMs).toBe(50);
    expect(a.windows.at(-1)?.phases?.waitMs).toBe(600);
    expect(a.diagnosis.verdict).toBe('soft-throttling');
    expect(formatAnalysis(a)).toMatch(/wait ms/);
  });
});

describe('analyze: the failure counts', () => {
  it('shows beside the 429 and 503 columns the other failures, as the summary counts them', () => {
    // One window: 18 × 429, two 500s and 20 successes.
    const start = Date.parse('2026-01-31T04:00:00Z');
    const statuses = [...Array<number>(18).fill(429), 500, 500, ...Array<number>(20).fill(200)];
    const lines = statuses.map(
      (status, i) =>
        `${new Date(start + i * 100).toISOString()} https://a.example/p/${i} 50 ${status}`,
    );
    const a = analyzeLines(lines, { windowS: 10 });
    // --json keeps its field: every failure, the 429s included.
    expect(a.windows[0]).toMatchObject({ throttled: 18, overloaded: 0, failed: 20 });
    const text = formatAnalysis(a);
    expect(text).toMatch(/ 429 +503 +other fail +alarms\n\+0:00\*.* 18 +0 +2 *\n/);
    expect(text).toContain('18 × 429, 0 × 503, 2 other failures.');
    expect(windowsHtml(a)).toContain('<th>429</th><th>503</th><th>other fail</th><th>alarms</th>');
    expect(windowsHtml(a)).toContain('<td>18</td><td>0</td><td>2</td><td></td></tr>');
  });
});

describe('analyze: a 503 the classifier called throttled', () => {
  it('counts once, as a 503, and leaves the other failures as they are', () => {
    // S3's SlowDown: a 503 classified `throttled`. Ten of them, one 500 and nine successes.
    const result = (status: number, signal: string, i: number) =>
      JSON.stringify({
        url: `https://b.example/${i}`,
        status,
        signal,
        latencyMs: 40,
        at: 1000 + i,
      });
    const lines = [
      ...Array.from({ length: 10 }, (_, i) => result(503, 'throttled', i)),
      result(500, 'server-error', 10),
      ...Array.from({ length: 9 }, (_, i) => result(200, 'ok', 11 + i)),
    ];
    const text = formatAnalysis(analyzeLines(lines, { windowS: 10 }));
    expect(text).toContain('0 × 429, 10 × 503, 1 other failures.');
  });
});

describe('analyze: robustness and streaming', () => {
  it('never throws on arbitrary lines and reports finite totals', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string(),
            fc.json().map((j) => j),
            fc.constant('2026-01-31T04:00:00Z u 5'),
          ),
        ),
        (lines) => {
          const a = analyzeLines(lines, { windowS: 1 });
          expect(a.lines.total).toBe(lines.length);
          expect(Number.isFinite(a.totals.rps)).toBe(true);
          expect(
            a.lines.blank +
              a.lines.malformed +
              a.lines.unsent +
              Object.values(a.lines.byFormat).reduce((x, y) => x + y, 0),
          ).toBe(lines.length);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('one far-future stamp is a malformed line, not a log stretched over centuries', () => {
    const event = (t: number) => JSON.stringify({ t, type: 'sample', rttMs: 5, signal: 'ok' });
    const a = analyzeLines([event(1000), event(1e13), event(2000)], { windowS: 1 });
    expect(a.lines).toMatchObject({ malformed: 1, byFormat: { event: 2 } });
    expect(a.malformedExamples).toEqual([
      { line: 2, reason: expect.stringMatching(/more than a year from the first record/) },
    ]);
    expect(a.windows.map((w) => w.requests)).toEqual([1, 1]);
    expect(a.span).toMatchObject({ start: 1000, end: 2000 });
    // The first record sets the axis: everything a year from it is refused, whichever came first.
    const b = analyzeLines([event(8e15), event(1000)]);
    expect(b.lines.malformed).toBe(1);
    expect(() => formatAnalysis(b)).not.toThrow();
  });

  it('fuzz: extreme times and windows always finish, with rows bounded by the records', () => {
    const time = fc.oneof(
      fc.double({ noNaN: true }),
      fc.integer({ min: -8.64e15, max: 8.64e15 }),
      fc.constantFrom(0, 1000, 8.64e15, -8.64e15, 1e13, 1.7e12, Number.MAX_VALUE),
    );
    const line = fc.oneof(
      fc
        .tuple(time, fc.option(time, { nil: undefined }))
        .map(([t, wall]) => JSON.stringify({ t, wall, type: 'sample', rttMs: 3, signal: 'ok' })),
      time.map((at) => JSON.stringify({ url: 'https://a.example/', status: 200, at })),
      fc.date({ noInvalidDate: true }).map((d) => `${d.toISOString()} https://a.example/ 7`),
    );
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 40 }),
        fc.constantFrom(0.001, 1, 10),
        (lines, windowS) => {
          const a = analyzeLines(lines, { windowS });
          const timed = a.totals.requests - a.totals.untimed;
          // A row per window with a record or an alarm in it, and one per empty run between them.
          expect(a.windows.length).toBeLessThanOrEqual(2 * (timed + a.alarms.length) + 1);
          if (a.span) expect(a.span.durationS).toBeLessThanOrEqual(2 * 366 * 86_400);
          expect(formatAnalysis(a)).toMatch(/Diagnosis:/);
          expect(buildReportData(a).series.t.length).toBeLessThanOrEqual(2 * a.windows.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('streams from a Readable and gets the same answer as from an array', async () => {
    const lines = plainLines(closedLoop({ durationS: 120, workers: () => 4, latencyMs: () => 50 }));
    const streamed = await analyzeLog(Readable.from([`${lines.join('\r\n')}\r\n`]), {
      windowS: 10,
    });
    expect(streamed).toEqual(analyzeLines(lines, { windowS: 10 }));
  });

  it('validates its options', () => {
    expect(() => new LogAnalyzer({ windowS: 0 })).toThrow(/windowS.*>= 0.001.*got 0/);
    expect(() => new LogAnalyzer({ windowz: 1 } as never)).toThrow(/unknown option `windowz`/);
    expect(() => new LogAnalyzer({ decay: { decayFraction: 2 } })).toThrow(/decayFraction/);
  });
});
