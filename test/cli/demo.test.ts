import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoVerdict } from '../../src/cli/demo-parts.js';
import type { RunSummary } from '../../src/sim/summary.js';
import { ensureBuilt, runCli } from './cli-process.js';

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'ratewise-demo-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ratewise demo explains itself', () => {
  it('says what its columns are, ends with a verdict, and its report shows the naive run beside ratewise', async () => {
    const run = await runCli(['demo', '--duration', '3', '--dir', 'out'], dir, 30_000);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[1]).toMatch(
      /^every 2 s: t = seconds into the run; limit = requests ratewise lets run at once .*; ok and 429s = responses so far$/,
    );
    const row = (name: string) => {
      const cells = lines.find((l) => l.startsWith(`| ${name} |`))?.split('|') ?? [];
      return { ok: Number(cells[2]), refused: Number(cells[3]) };
    };
    const [mine, theirs] = [row('ratewise'), row('naive')];
    const verdict = lines.find((l) => l.startsWith('In 3 s each'));
    expect(verdict).toContain(`ratewise fetched ${mine.ok} pages and naive ${theirs.ok} (`);
    expect(verdict).toContain(`was refused ${mine.refused} times to naive's ${theirs.refused} (`);

    const html = readFileSync(join(dir, 'out', 'report.html'), 'utf8');
    expect(html).toContain('id="chart-compare"');
    expect(html).toMatch(/<h2>Compared<\/h2>/);
    expect(html).toMatch(new RegExp(`<td>naive</td><td>\\d+</td><td>${theirs.ok}</td>`));
    expect(html).toMatch(new RegExp(`<td>ratewise</td><td>\\d+</td><td>${mine.ok}</td>`));
    const naive = readFileSync(join(dir, 'out', 'naive.log'), 'utf8')
      .trim()
      .split('\n');
    expect(naive.filter((l) => / 200$/.test(l)).length).toBe(theirs.ok);
  }, 40_000);

  it('words the verdict both ways', () => {
    const run = (ok: number, rejected: number) => ({ ok, rejected }) as RunSummary;
    expect(demoVerdict(run(690, 15), run(590, 450), 25)).toBe(
      "In 25 s each, ratewise fetched 690 pages and naive 590 (17 % more), and was refused 15 times to naive's 450 (97 % fewer).",
    );
    expect(demoVerdict(run(174, 2), run(192, 0), 8)).toBe(
      "In 8 s each, ratewise fetched 174 pages and naive 192 (9 % fewer), and was refused 2 times to naive's 0 (2 more).",
    );
  });
});
