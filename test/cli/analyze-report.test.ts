import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { reportFailure, runAnalyze } from '../../src/cli/analyze.js';
import { runReport } from '../../src/cli/report.js';
import { TooManyWindowsError } from '../../src/errors.js';
import { closedLoop, plainLines } from '../analyze/synthetic.js';
import { captureIo } from './command-io.js';

const dir = mkdtempSync(join(tmpdir(), 'ratewise-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lines = plainLines(
  closedLoop({ durationS: 300, workers: () => 6, latencyMs: (s) => 100 + s * 2 }),
);
const log = join(dir, 'requests.log');
writeFileSync(
  log,
  `${lines.slice(0, 50).join('\n')}\nnot a log line\n${lines.slice(50).join('\n')}\n`,
);

describe('ratewise analyze', () => {
  it('prints the window table, the malformed line and the diagnosis', async () => {
    const io = captureIo();
    expect(await runAnalyze(log, { window: 60 }, io)).toBe(0);
    const out = io.out();
    expect(out).toMatch(/^Windows of 60 s:\noffset\s+UTC\s+reqs\s+req\/s\s+p50 ms/);
    expect(out.match(/^\+\d+:\d\d/gm)).toHaveLength(6);
    expect(out).toMatch(/1 malformed\.\n {2}line 51: not an ISO 8601 timestamp: "not"/);
    expect(out).toMatch(/Diagnosis: soft-throttling\./);
    expect(io.err()).toBe('');
  });

  it('--json prints one object with the same analysis; - reads stdin', async () => {
    const io = captureIo();
    expect(await runAnalyze(log, { window: 60, json: true }, io)).toBe(0);
    const analysis = JSON.parse(io.out());
    expect(analysis.windows).toHaveLength(6);
    expect(analysis.lines.malformed).toBe(1);
    expect(analysis.diagnosis.verdict).toBe('soft-throttling');
    const piped = captureIo(readFileSync(log, 'utf8'));
    expect(await runAnalyze('-', { window: 60, json: true }, piped)).toBe(0);
    expect(JSON.parse(piped.out())).toEqual(analysis);
  });

  it('usage problems: one line on stderr, exit 2', async () => {
    const missing = captureIo();
    expect(await runAnalyze(join(dir, 'nope.log'), {}, missing)).toBe(2);
    expect(missing.err()).toMatch(/^ratewise: cannot read .*nope\.log: ENOENT\n$/);
    const folder = captureIo();
    expect(await runAnalyze(dir, {}, folder)).toBe(2);
    expect(folder.err()).toMatch(/is not a file\n$/);
    writeFileSync(join(dir, 'bad-baseline.json'), '{"host":"x"}');
    const badBaseline = captureIo();
    expect(await runAnalyze(log, { baseline: join(dir, 'bad-baseline.json') }, badBaseline)).toBe(
      2,
    );
    expect(badBaseline.err().trim().split('\n')).toHaveLength(1);
    expect(badBaseline.err()).toMatch(/bad-baseline\.json: baseline: .*"p50" must be/);
    const narrow = captureIo();
    expect(reportFailure(narrow, new TooManyWindowsError(1, 100_000))).toBe(2);
    expect(narrow.err()).toBe(
      'ratewise: --window 0.001: this log needs more than 100000 rows in windows of 0.001 s: analyse it with a wider window\n',
    );
  });

  it('a stray far-future line is reported as malformed, and the table stays short', async () => {
    const path = join(dir, 'stray.log');
    const event = (t: number) => JSON.stringify({ t, type: 'sample', rttMs: 5, signal: 'ok' });
    writeFileSync(path, `${event(1000)}\n${event(1e13)}\n${event(1500)}\n`);
    const io = captureIo();
    expect(await runAnalyze(path, { window: 0.001 }, io)).toBe(0);
    expect(io.out()).toMatch(/line 2: time 10000000000000 ms is more than a year from the first/);
    expect(io.out()).toMatch(/~ a stall: one row for a run of empty windows/);
    expect(io.out().split('\n').length).toBeLessThan(30);
  });
});

describe('ratewise report', () => {
  it('writes a self-contained HTML file and says where', async () => {
    const out = join(dir, 'report.html');
    const io = captureIo();
    expect(await runReport(log, { out, window: 30 }, io)).toBe(0);
    expect(io.out()).toMatch(
      /^wrote .*report\.html \(\d+ KB, 301 points per series in 1 s buckets\)\n$/,
    );
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('ratewise report — requests.log');
    expect(html).toContain('Windows of 30 s');
    const json = captureIo();
    expect(await runReport(log, { out, json: true, title: 'batch 7' }, json)).toBe(0);
    expect(JSON.parse(json.out())).toMatchObject({ path: out, points: 301, bucketS: 1 });
    expect(readFileSync(out, 'utf8')).toContain('ratewise report — batch 7');
  });

  it('refuses stdin, unreadable logs and an output it cannot write (exit 2); creates the output folder', async () => {
    const stdin = captureIo();
    expect(await runReport('-', {}, stdin)).toBe(2);
    expect(stdin.err()).toMatch(/needs a log file, not stdin/);
    const missing = captureIo();
    expect(await runReport(join(dir, 'missing.log'), { out: join(dir, 'x.html') }, missing)).toBe(
      2,
    );
    expect(existsSync(join(dir, 'x.html'))).toBe(false);
    const nested = join(dir, 'new', 'folder', 'report.html');
    expect(await runReport(log, { out: nested }, captureIo())).toBe(0);
    expect(existsSync(nested)).toBe(true);
    const unwritable = captureIo();
    expect(await runReport(log, { out: join(nested, 'x.html') }, unwritable)).toBe(2);
    expect(unwritable.err()).toMatch(
      /^ratewise: cannot write .*x\.html: ENOTDIR \(.*report\.html is a file\)\n$/,
    );
  });
});
