import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { captureBaselines } from '../../src/analyze/baseline-capture-run.js';
import { checkHost } from '../../src/analyze/baseline-check.js';
import { baselineFileName, loadBaseline, saveBaseline } from '../../src/analyze/baseline-store.js';
import { runConcurrencyRamp } from '../../src/analyze/concurrency-ramp.js';
import { createHttpProbe } from '../../src/analyze/http-probe.js';
import { judgeKnee } from '../../src/analyze/knee.js';
import { systemClock } from '../../src/clock.js';
import { createModel } from '../../src/sim/models/index.js';
import type { ServerModel } from '../../src/sim/models/model.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { fifoModel } from './fifo-model.js';

const servers: MockServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
const dir = mkdtempSync(join(tmpdir(), 'ratewise-baselines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function serve(model: ServerModel): Promise<MockServer> {
  const server = await startMockServer({ model });
  servers.push(server);
  return server;
}

const httpProbes = { open: (concurrency: number) => createHttpProbe({ concurrency }) };

describe('concurrency ramp against loopback mock servers', () => {
  it('finds the knee of a 2-worker FIFO server, in the server wait', async () => {
    // 200 ms a request: a loaded machine's delays are small beside it (the knee stays at 2).
    const server = await serve(fifoModel(2, 200));
    const steps = await runConcurrencyRamp(`${server.url}/item`, httpProbes, systemClock, {
      maxConcurrency: 32,
      requestsPerStep: 8,
    });
    expect(steps.map((s) => s.concurrency)).toEqual([1, 2, 4, 8]);
    expect(steps.every((s) => s.ok === s.requests)).toBe(true);
    expect(steps[0]?.phases?.waitMs).toBeGreaterThanOrEqual(198);
    const verdict = judgeKnee(steps);
    expect(verdict).toMatchObject({ verdict: 'knee', at: 2 });
    expect(verdict.explanation).toMatch(/in the server wait/);
  });

  it("calls a concurrency cap's 503s throttling, at the first step past the cap", async () => {
    const server = await serve(createModel('concurrency-cap', { limit: 3, latencyMs: 40 }));
    const steps = await runConcurrencyRamp(`${server.url}/`, httpProbes, systemClock, {
      requestsPerStep: 12,
    });
    expect(steps.map((s) => s.concurrency)).toEqual([1, 2, 4]);
    expect(steps[2]?.overloaded).toBeGreaterThan(0);
    expect(judgeKnee(steps)).toMatchObject({ verdict: 'throttled', at: 4 });
  });
});

describe('the HTTP probe measures rather than adapts', () => {
  async function hammer(url: string, perWorker: number): Promise<number[]> {
    const { probe, close } = createHttpProbe({ concurrency: 4 });
    const latencies: number[] = [];
    const worker = async () => {
      for (let i = 0; i < perWorker; i++) latencies.push((await probe(url)).latencyMs);
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    await close();
    return latencies;
  }

  it('sends 4 at a time against a cap of 2: the 503s keep coming, no cut hides them', async () => {
    const server = await serve(createModel('concurrency-cap', { limit: 2, latencyMs: 100 }));
    await hammer(`${server.url}/`, 15);
    const stats = server.stats();
    // Past the cap: a refused request meets the two held ones. Four at once needs the two refused
    // ones of a burst at the server together, and the cap answers them at once: on a loaded
    // machine they come one after the other.
    expect(stats.maxInFlight).toBeGreaterThanOrEqual(3);
    // The concurrency limit holds at 4 (AIMD would have cut to 2 and hidden the cap); the
    // pacer that cannot be switched off spaces the requests after the first 503s.
    expect(stats.byStatus['503']).toBeGreaterThanOrEqual(4);
  });

  it('keeps 4 in flight against a one-worker queue: latency stays 4 × the service time', async () => {
    const server = await serve(fifoModel(1, 50));
    const latencies = await hammer(`${server.url}/`, 12);
    // The latency guard would have cut to 1 in flight, and latency back to ~50 ms. The median,
    // not the minimum: on a loaded machine a worker sometimes sends its next request late.
    const last = latencies.slice(-8).sort((a, b) => a - b);
    expect(((last[3] ?? 0) + (last[4] ?? 0)) / 2).toBeGreaterThanOrEqual(150);
  });
});

describe('baselines against loopback mock servers', () => {
  it('captures politely, keeps the fastest window, saves one file per host, and a slower host is flagged', async () => {
    const model = fifoModel(1, 20);
    const server = await serve(model);
    const { probe, close } = createHttpProbe({ concurrency: 1 });
    const started = Date.now();
    const [capture] = await captureBaselines(
      [`${server.url}/a`, `${server.url}/b`],
      probe,
      systemClock,
      {
        requests: 12,
        intervalMs: 25,
        windowSize: 4,
      },
    );
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(11 * 25); // one request per interval, never faster
    expect(server.stats().arrivals).toBe(12);
    expect(capture).toMatchObject({
      host: `127.0.0.1:${server.port}`,
      requests: 12,
      ok: 12,
      rejected: 0,
      stoppedEarly: false,
    });
    expect(capture?.baseline?.samples).toBe(4);
    expect(capture?.baseline?.p50).toBeGreaterThanOrEqual(19);
    expect(capture?.baseline?.p50).toBeLessThan(200);

    const path = await saveBaseline(dir, capture?.baseline as never);
    expect(path).toBe(join(dir, `127.0.0.1_${server.port}.json`));
    expect(JSON.parse(readFileSync(path, 'utf8')).host).toBe(`127.0.0.1:${server.port}`);
    const loaded = await loadBaseline(dir, `127.0.0.1:${server.port}`);
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;

    model.setServiceMs(200);
    const live: number[] = [];
    for (let i = 0; i < 5; i++) live.push((await probe(`${server.url}/a`)).latencyMs);
    await close();
    const verdict = checkHost(loaded.baseline.host, live, loaded.baseline, { minSamples: 5 });
    expect(verdict).toMatchObject({ verdict: 'slow', samples: 5 });
    expect(verdict.ratio).toBeGreaterThan(2);
  });

  it('stops capturing a host that rejects, and reports missing or broken baseline files', async () => {
    const server = await serve(createModel('fixed-window', { rate: 2, latencyMs: 5 }));
    const { probe, close } = createHttpProbe({ concurrency: 1 });
    const [capture] = await captureBaselines([`${server.url}/`], probe, systemClock, {
      requests: 50,
      intervalMs: 0,
      maxRejections: 2,
    });
    await close();
    expect(capture).toMatchObject({ stoppedEarly: true, rejected: 2 });
    expect(capture?.requests).toBeLessThan(20);
    expect(await loadBaseline(dir, 'nowhere.example')).toMatchObject({ ok: false, missing: true });
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, baselineFileName('bad.example')), '{"host":"bad.example","p50":1}');
    const bad = await loadBaseline(dir, 'bad.example');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatch(/bad\.example\.json: baseline: .*"p95" must be/);
  });
});
