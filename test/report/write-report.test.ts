import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeReport } from '../../src/report/write-report.js';
import { VirtualClock } from '../../src/virtual-clock.js';

const dir = mkdtempSync(join(tmpdir(), 'ratewise-write-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const log = join(dir, 'run.log');
writeFileSync(
  log,
  Array.from(
    { length: 40 },
    (_, i) => `2026-01-31T04:00:${String(i).padStart(2, '0')}Z https://a.example/ 20`,
  ).join('\n'),
);

describe('writeReport', () => {
  it('stamps the page with its clock’s wall time', async () => {
    const out = join(dir, 'clocked.html');
    const clock = new VirtualClock({ wallStart: Date.UTC(2030, 4, 6, 7, 8, 9) });
    await writeReport({ log, out, clock });
    expect(readFileSync(out, 'utf8')).toContain('generated 2030-05-06T07:08:09.000Z');
  });

  it('checks its own options under its own name', async () => {
    const out = join(dir, 'x.html');
    await expect(writeReport({ log, out, tittle: 'x' } as never)).rejects.toThrow(
      /^writeReport: unknown option `tittle`/,
    );
    await expect(writeReport({ log: '', out })).rejects.toThrow(
      /^writeReport: option `log` must be a non-empty path/,
    );
    await expect(writeReport({ log, out: 5 } as never)).rejects.toThrow(
      /^writeReport: option `out`/,
    );
    await expect(writeReport({ log, out, title: 7 } as never)).rejects.toThrow(
      /^writeReport: option `title` must be a string/,
    );
    await expect(writeReport({ log, out, windowS: 0 })).rejects.toThrow(
      /^LogAnalyzer: option `windowS`/,
    );
  });
});
