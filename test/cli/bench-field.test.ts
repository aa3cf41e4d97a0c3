import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli } from './cli-process.js';

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'ratewise-bench-field-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ratewise bench --field', () => {
  it('samples the field set and says so in its JSON', async () => {
    const run = await runCli(
      ['bench', '--field', '3', '--seed', '1', '--strategy', 'ratewise', '--json'],
      dir,
      60_000,
    );
    expect(run.stderr).toContain('bench --field: 3/3 servers');
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const result = JSON.parse(lines[0] ?? '{}');
    expect(result.set).toBe('field');
    expect(result.seed).toBe(1);
    expect(result.figures.map((f: { strategy: string }) => f.strategy)).toEqual(['ratewise']);
    expect(result.figures[0].goodputAll.n).toBe(3);
    expect(result.figures[0].hotLoops).toBe(0);
  }, 60_000);

  it('calls a target with no server of its kind in the sample not measured, not MISSED', async () => {
    const run = await runCli(
      ['bench', '--field', '3', '--seed', '1', '--strategy', 'ratewise'],
      dir,
      60_000,
    );
    expect(run.code).toBe(0);
    // The field set has no quota servers and no ramps: those figures are "—".
    expect(run.stdout).toContain(
      '- not measured: quota used p10 ≥ 98 % (—: no server of its kind in the sample)',
    );
    expect(run.stdout).not.toMatch(/^- MISSED: .*\(—\)$/m);
    expect(run.stdout).toMatch(/^- met: hot loops 0 \(0\)$/m);
  }, 60_000);

  it.concurrent.for([
    [
      ['bench', '--family', '2', '--field', '2'],
      /^ratewise: --family and --field each sample their own servers: give one of them\n$/,
    ],
    [
      ['bench', '--field', '2', '--duration', '10'],
      /^ratewise: --field runs its own servers in virtual time: drop --real, --scenario and --duration\n$/,
    ],
    [
      ['bench', '--field', '0'],
      /^ratewise: error: option '--field <n>' argument '0' is invalid\. expected an integer >= 1\.\n$/,
    ],
    [
      ['bench', '--timing-noise-ms', '5'],
      /^ratewise: --timing-noise-ms applies to --family and --field runs only\n$/,
    ],
  ] as const)('%o exits 2 with one line saying why', async ([args, message], { expect }) => {
    const run = await runCli(args, dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stdout).toBe('');
  });
});
