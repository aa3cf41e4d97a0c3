import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadBaseline, saveBaseline } from '../../src/analyze/baseline-store.js';

const dir = mkdtempSync(join(tmpdir(), 'ratewise-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const baseline = (p95: number) => ({
  host: 'a.example:8080',
  p50: p95 / 2,
  p95,
  p99: p95 * 2,
  samples: 20,
  capturedAt: '2026-01-31T04:00:00.000Z',
});

describe('saveBaseline', () => {
  it('replaces a host’s file whole, through a temporary file that does not stay behind', async () => {
    const saves = await Promise.all([150, 160, 170].map((p95) => saveBaseline(dir, baseline(p95))));
    expect(new Set(saves)).toEqual(new Set([join(dir, 'a.example_8080.json')]));
    expect(readdirSync(dir)).toEqual(['a.example_8080.json']);
    const loaded = await loadBaseline(dir, 'a.example:8080');
    expect(loaded.ok).toBe(true);
    if (loaded.ok) expect([150, 160, 170]).toContain(loaded.baseline.p95);
  });

  it('leaves nothing behind when the file cannot be written', async () => {
    const blocked = join(dir, 'blocked');
    // A directory where the file should go: the rename fails, the temporary file is removed.
    mkdirSync(join(blocked, 'x.example.json'), { recursive: true });
    await expect(saveBaseline(blocked, { ...baseline(1), host: 'x.example' })).rejects.toThrow(
      /EISDIR|ENOTEMPTY|EEXIST/,
    );
    expect(readdirSync(blocked)).toEqual(['x.example.json']);
  });
});
