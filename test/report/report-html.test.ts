import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeLines } from '../../src/analyze/log-analyzer.js';
import { loadChartAssets } from '../../src/report/assets.js';
import { escapeHtml, inlineScript, jsonForScript } from '../../src/report/escape.js';
import { renderReportHtml } from '../../src/report/html.js';
import { buildReportData, chartBucketS, MAX_CHART_POINTS } from '../../src/report/report-data.js';
import { closedLoop, plainLines } from '../analyze/synthetic.js';

describe('report pieces', () => {
  it('escapes text and inlined JSON so nothing can close the script element', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;',
    );
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), (value, text) => {
        const json = jsonForScript({ value, text: `</script>${text}\u2028` });
        expect(json).not.toMatch(/<|\u2028|\u2029/);
        expect(JSON.parse(json)).toEqual(
          JSON.parse(JSON.stringify({ value, text: `</script>${text}\u2028` })),
        );
      }),
    );
    expect(inlineScript('a("</SCRIPT>")')).toBe('a("<\\/SCRIPT>")');
  });

  it('keeps every chart series within the point bound, at one-second buckets for short runs', () => {
    expect(chartBucketS(0)).toBe(1);
    expect(chartBucketS(600)).toBe(1);
    expect(chartBucketS(6 * 3600)).toBe(15);
    expect(chartBucketS(30 * 86_400) % 60).toBe(0);
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e9, noNaN: true }), (durationS) => {
        const bucket = chartBucketS(durationS);
        // Windows from the first record to the last, plus the partial one at the end.
        expect(Math.floor(durationS / bucket) + 1).toBeLessThanOrEqual(MAX_CHART_POINTS);
      }),
    );
  });

  it('builds equal-length series on a wall-clock axis and renders a self-contained page', () => {
    const lines = plainLines(
      closedLoop({
        durationS: 90,
        workers: () => 4,
        latencyMs: () => 50,
        status: (s) => (s > 60 ? 429 : 200),
      }),
    );
    const analysis = analyzeLines(lines, { windowS: 1 });
    const data = buildReportData(analysis);
    expect(data.wallClock).toBe(true);
    expect(data.series.t[0]).toBe((analysis.span?.start ?? 0) / 1000);
    const lengths = Object.values(data.series).map((s) => s.length);
    expect(new Set(lengths)).toEqual(new Set([analysis.windows.length]));
    expect(data.series.throttled.slice(0, 50).every((v) => v === null)).toBe(true);
    expect(data.series.throttled.slice(65, 85).every((v) => (v ?? 0) > 0)).toBe(true);
    expect(data.hasControl).toBe(false);
    const html = renderReportHtml(analysis, data, loadChartAssets(), {
      title: 'a <b> log',
      generatedAt: 'now',
    });
    expect(html).toContain('<title>ratewise report — a &lt;b&gt; log</title>');
    expect(html).toContain('id="chart-throughput"');
    expect(html).not.toContain('id="chart-control"');
    expect(html).toMatch(/Diagnosis: hard-throttling/);
    expect(html).not.toMatch(/<th>limit<\/th>/);
    expect(html.length).toBeLessThan(250_000);
  });
});
