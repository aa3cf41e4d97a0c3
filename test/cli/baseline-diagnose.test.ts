import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createHttpProbe } from '../../src/analyze/http-probe.js';
import type { Probe } from '../../src/analyze/probe.js';
import { type BaselineDeps, runCapture, runCheck } from '../../src/cli/baseline.js';
import { runDiagnose } from '../../src/cli/diagnose.js';
import { systemClock } from '../../src/clock.js';
import type { ServerModel } from '../../src/sim/models/model.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { VirtualClock } from '../../src/virtual-clock.js';
import { fifoModel } from '../analyze/fifo-model.js';
import { captureIo } from './command-io.js';

const servers: MockServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
const dir = mkdtempSync(join(tmpdir(), 'ratewise-cli-baselines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function serve(model: ServerModel): Promise<MockServer> {
  const server = await startMockServer({ model });
  servers.push(server);
  return server;
}

function deps(io = captureIo()): BaselineDeps & { io: ReturnType<typeof captureIo> } {
  return { io, clock: systemClock, openProbe: () => createHttpProbe({ concurrency: 1 }) };
}

describe('ratewise baseline', () => {
  it('capture writes one file per host; check passes while fast (exit 0) and alarms once slow (exit 1)', async () => {
    // Service times well above a loaded machine's scheduling noise (tens of ms), so the fast check
    // stays within 2× the baseline and the slow one is far beyond it.
    const model = fifoModel(1, 60);
    const server = await serve(model);
    const host = `127.0.0.1:${server.port}`;
    const capture = deps();
    const fast = { dir, requests: 10, intervalMs: 5, windowRequests: 5 };
    expect(await runCapture([`${server.url}/a`], fast, capture)).toBe(0);
    expect(capture.io.out()).toMatch(
      new RegExp(
        `^host\\s+requests\\s+ok\\s+429/503\\s+p50 ms\\s+p95 ms\\s+p99 ms\\s+file\\n${host.replace(/\./g, '\\.')}\\s+10\\s+10\\s+0\\s`,
      ),
    );
    expect(readdirSync(dir)).toContain(`127.0.0.1_${server.port}.json`);

    const ok = deps();
    expect(
      await runCheck([`${server.url}/a`], { dir, requests: 5, intervalMs: 5, json: true }, ok),
    ).toBe(0);
    expect(JSON.parse(ok.io.out()).checks).toEqual([
      expect.objectContaining({ host, verdict: 'ok', samples: 5 }),
    ]);

    model.setServiceMs(400);
    const slow = deps();
    expect(await runCheck([`${server.url}/a`], { dir, requests: 5, intervalMs: 5 }, slow)).toBe(1);
    expect(slow.io.out()).toMatch(/slow\n$/);
  });

  it('check reads a log per host; no baseline or too few latencies is "no verdict" (exit 3)', async () => {
    writeFileSync(
      join(dir, 'store.example.com.json'),
      JSON.stringify({
        host: 'store.example.com',
        p50: 100,
        p95: 150,
        p99: 200,
        samples: 100,
        capturedAt: '2026-01-31T04:00:00Z',
      }),
    );
    const log = join(dir, 'requests.log');
    const line = (i: number, ms: number, host = 'store.example.com') =>
      `2026-01-31T04:00:${String(i % 60).padStart(2, '0')}Z https://${host}/p/${i} ${ms}`;
    writeFileSync(
      log,
      Array.from({ length: 150 }, (_, i) => line(i, i < 50 ? 900 : 140)).join('\n'),
    );
    const healthy = deps();
    expect(await runCheck([log], { dir }, healthy)).toBe(0); // only the last 100 latencies count
    expect(healthy.io.out()).toMatch(/store\.example\.com\s+100\s+140\s+150\s+0\.93×\s+ok/);
    writeFileSync(
      log,
      Array.from({ length: 30 }, (_, i) => line(i, 500, 'other.example')).join('\n'),
    );
    const unknown = deps();
    expect(await runCheck([log], { dir }, unknown)).toBe(3);
    expect(unknown.io.out()).toMatch(/other\.example: no baseline file .*other\.example\.json/);
  });

  it('check judges a log host on --window-requests latencies (--window, its former name) when fewer than 20, and reads - from stdin', async () => {
    writeFileSync(
      join(dir, 'shop.example.json'),
      JSON.stringify({
        host: 'shop.example',
        p50: 100,
        p95: 150,
        p99: 200,
        samples: 100,
        capturedAt: '2026-01-31T04:00:00Z',
      }),
    );
    const text = Array.from(
      { length: 30 },
      (_, i) => `2026-01-31T04:00:${String(i).padStart(2, '0')}Z https://shop.example/p/${i} 120`,
    ).join('\n');
    const log = join(dir, 'shop.log');
    writeFileSync(log, text);
    const small = deps();
    expect(await runCheck([log], { dir, window: 10, json: true }, small)).toBe(0);
    expect(JSON.parse(small.io.out()).checks).toEqual([
      expect.objectContaining({ host: 'shop.example', verdict: 'ok', samples: 10 }),
    ]);
    const piped = deps(captureIo(text));
    expect(await runCheck(['-'], { dir, json: true }, piped)).toBe(0);
    expect(JSON.parse(piped.io.out()).checks).toEqual([
      expect.objectContaining({ host: 'shop.example', verdict: 'ok', samples: 30 }),
    ]);
    expect(piped.io.err()).toBe('');
  });

  it('usage errors exit 2 in one line', async () => {
    const bad = deps();
    expect(await runCapture(['not-a-url'], { dir }, bad)).toBe(2);
    expect(bad.io.err()).toBe('ratewise: not an http(s) URL: not-a-url\n');
    const mixed = deps();
    expect(await runCheck(['http://127.0.0.1:1/', 'ftp://x'], { dir }, mixed)).toBe(2);
    expect(mixed.io.err()).toBe('ratewise: not an http(s) URL: ftp://x\n');
    const missing = deps();
    expect(await runCheck([join(dir, 'missing.log')], { dir }, missing)).toBe(2);
    expect(missing.io.err()).toMatch(/^ratewise: cannot read .*missing\.log: ENOENT\n$/);
  });
});

describe('ratewise diagnose', () => {
  it('Ctrl-C mid-ramp prints the finished steps and their verdict, not an error', async () => {
    const clock = new VirtualClock();
    const abort = new AbortController();
    let sent = 0;
    const probe: Probe = async (_url, signal) => {
      if (++sent === 50) clock.setTimer(10, () => abort.abort()); // in the step at 4
      await clock.sleep(100, signal);
      return { status: 200, signal: 'ok', latencyMs: 100 };
    };
    const io = captureIo();
    const run = runDiagnose(
      'http://x.example/',
      { requestsPerStep: 20, json: true },
      {
        io,
        clock,
        probes: () => ({ open: () => ({ probe, close: async () => {} }) }),
        signal: abort.signal,
      },
    );
    let code: number | undefined;
    void run.then((c) => {
      code = c;
    });
    while (code === undefined) await clock.advance(10);
    expect(code).toBe(0);
    const result = JSON.parse(io.out());
    expect(result.steps.map((s: { concurrency: number }) => s.concurrency)).toEqual([1, 2]);
    expect(result.verdict.verdict).toBe('scaling');
    expect(io.err()).toMatch(/interrupted: 2 finished step\(s\) shown\n$/);
  });

  it('prints the step table and the knee of a queueing server, with progress on stderr', async () => {
    // 200 ms a request: a loaded machine's delays are small beside it, so 2 in flight already
    // keep both workers busy and 4 cannot look faster (the knee stays at 2).
    const server = await serve(fifoModel(2, 200));
    const io = captureIo();
    const code = await runDiagnose(
      `${server.url}/`,
      { maxConcurrency: 16, requestsPerStep: 8 },
      {
        io,
        clock: systemClock,
        probes: (timeoutMs) => ({
          open: (concurrency) => createHttpProbe({ concurrency, timeoutMs }),
        }),
      },
    );
    expect(code).toBe(0);
    // One progress line a step, 1, 2, 4 … up to 16; the ramp stops after two steps that did not
    // scale, and on a loaded machine a step may wrongly look like it scaled, so the count varies.
    const progress = io.err().trim().split('\n');
    expect(progress.length).toBeGreaterThanOrEqual(4);
    expect(progress.length).toBeLessThanOrEqual(5);
    expect(progress).toEqual(
      progress.map((_, i) =>
        expect.stringMatching(new RegExp(`^concurrency ${2 ** i}: [\\d.]+ req/s, p50 \\d+`)),
      ),
    );
    const out = io.out();
    expect(out).toMatch(
      /^in flight\s+requests\s+req\/s\s+p50 ms\s+p95 ms\s+ok\s+429\s+503\s+errors\s+conn ms\s+wait ms\s+body ms\n/,
    );
    // Two workers: the knee is at 2 in flight — or the next step on a machine so loaded that the
    // 2-in-flight step itself ran slow (measured: 7.2 req/s at 2, 9.7 at 4, knee read at 4).
    expect(out).toMatch(/\nVerdict: knee at [24] in flight .* in the server wait/);
  });

  it('--json, and a bad URL is a usage error', async () => {
    const server = await serve(fifoModel(8, 5));
    const io = captureIo();
    const probes = (timeoutMs: number) => ({
      open: (concurrency: number) => createHttpProbe({ concurrency, timeoutMs }),
    });
    expect(
      await runDiagnose(
        `${server.url}/`,
        { maxConcurrency: 4, requestsPerStep: 8, json: true },
        { io, clock: systemClock, probes },
      ),
    ).toBe(0);
    const result = JSON.parse(io.out());
    expect(result.steps.map((s: { concurrency: number }) => s.concurrency)).toEqual([1, 2, 4]);
    expect(['scaling', 'knee']).toContain(result.verdict.verdict);
    const bad = captureIo();
    expect(await runDiagnose('localhost:80', {}, { io: bad, clock: systemClock, probes })).toBe(2);
    expect(bad.err()).toBe('ratewise: not an http(s) URL: localhost:80\n');
  });
});
