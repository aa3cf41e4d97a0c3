import { describe, expect, it } from 'vitest';
import { analyzeLines } from '../../src/analyze/log-analyzer.js';
import { comparisonSeries } from '../../src/report/comparison.js';
import { detailsHtml, diagnosisHtml } from '../../src/report/summary-html.js';
import { closedLoop, plainLines } from '../analyze/synthetic.js';

/** 60 s of 4 workers at 50 ms; `refusals` requests answered 429 (spread out). */
function run(refusals: number, seed = 1) {
  const every = refusals > 0 ? Math.floor(4000 / refusals) : Infinity;
  return analyzeLines(
    plainLines(
      closedLoop({
        durationS: 60,
        workers: () => 4,
        latencyMs: () => 50,
        status: (_s, i) => (i % every === every - 1 ? 429 : 200),
        seed,
      }),
    ),
    { windowS: 1 },
  );
}

/** The text of the cells of an HTML fragment, tags and attributes left out. */
function cellText(html: string): string {
  return html.replace(/<[^>]*>/g, ' ');
}

describe('the report in words', () => {
  it('never says "No throttling seen" over a run with 429s', () => {
    const some = run(12);
    expect(some.totals.throttled).toBeGreaterThan(0);
    expect(some.diagnosis.verdict).toBe('healthy');
    const text = cellText(diagnosisHtml(some));
    expect(text).not.toMatch(/No throttling seen/);
    expect(text).toMatch(
      new RegExp(
        `No sustained throttling over \\d+ requests: ${some.totals.throttled} refused \\(`,
      ),
    );
    expect(cellText(diagnosisHtml(run(0)))).toMatch(/No throttling seen over \d+ requests/);
  });

  it('says what the detectors found in plain words, the statistic in a tooltip', () => {
    const html = detailsHtml(run(0));
    const text = cellText(html);
    expect(text).toContain('Slower with every request sent? (a per-client ramp)');
    expect(text).toContain('Two groups of latencies? (a queue with a timeout)');
    expect(text).toContain('No: the latencies form one group.');
    expect(text).not.toMatch(/r\(count\|rate\)|Ashman|\bD \d/);
    expect(html).toMatch(
      /<tr title="[^"]*r\(count\|rate\)[^"]*"><th>Slower with every request sent\?/,
    );
    expect(html).toMatch(/<tr title="[^"]*D \d[^"]*"><th>Two groups of latencies\?/);
    expect(text).toMatch(/429 \/ 503 \/ other failures\s+0 \/ 0 \/ 0/);
  });

  it('lays two runs over each other by seconds from their start', () => {
    const mine = run(0);
    const theirs = run(400, 2);
    const c = comparisonSeries(mine, theirs, ['ratewise', 'naive']);
    expect(c.t.slice(0, 3)).toEqual([0, 1, 2]);
    expect(c.ok[0]).toHaveLength(c.t.length);
    expect(c.ok[1]).toHaveLength(c.t.length);
    // 4 workers at 50 ms: about 80 ok per second; the other run loses a tenth of them to 429s.
    expect(c.ok[0][10]).toBeGreaterThan(60);
    expect(c.refused[0].every((v) => v === null)).toBe(true);
    expect(c.refused[1].filter((v) => v !== null).length).toBeGreaterThan(30);
  });
});
