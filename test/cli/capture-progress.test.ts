import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { Probe } from '../../src/analyze/probe.js';
import { runCapture } from '../../src/cli/baseline.js';
import { captureProgress } from '../../src/cli/capture-progress.js';
import { VirtualClock } from '../../src/virtual-clock.js';
import { captureIo } from './command-io.js';

const dir = mkdtempSync(join(tmpdir(), 'ratewise-capture-progress-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('baseline capture shows what it does and how long is left', () => {
  it('says up front how long it takes, then a progress line every 10 s (not a terminal)', async () => {
    const clock = new VirtualClock();
    const probe: Probe = async () => ({ status: 200, signal: 'ok', latencyMs: 40 });
    const io = captureIo();
    let finished = false;
    const running = runCapture(
      ['http://a.example/1', 'http://b.example/1'],
      { dir, requests: 100 },
      { io, clock, openProbe: () => ({ probe, close: async () => {} }) },
    ).finally(() => {
      finished = true;
    });
    while (!finished) await clock.advance(500);
    expect(await running).toBe(0);
    const lines = io.err().trim().split('\n');
    expect(lines[0]).toBe(
      'ratewise baseline: capturing 2 hosts, 100 requests each, one every 1 s: about 100 s',
    );
    // Hosts go side by side: 200 requests in ~100 s, a line every 10 s with the time left.
    expect(lines.length).toBeGreaterThanOrEqual(9);
    expect(lines.length).toBeLessThanOrEqual(11);
    expect(lines[1]).toMatch(/^ratewise baseline: 2\d\/200 requests, about 9\d s left$/);
    expect(lines.at(-1)).toMatch(/^ratewise baseline: 1\d\d\/200 requests, about (9|10) s left$/);
  });

  it('draws a bar with the time left on a terminal', () => {
    const clock = new VirtualClock();
    const stream = Object.assign(new PassThrough(), { isTTY: true });
    let text = '';
    stream.on('data', (chunk) => (text += chunk));
    const progress = captureProgress(stream, clock, { hosts: 1, requests: 100, intervalMs: 1000 });
    progress.request();
    progress.stop();
    expect(text).toMatch(/about 100 s\n/);
    expect(text).toMatch(/1\/100 requests \| about \d+ s left/);
  });
});
