import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runAnalyze } from '../../src/cli/analyze.js';
import { runReport } from '../../src/cli/report.js';
import { createClient } from '../../src/client/client.js';
import { jsonlSink } from '../../src/events/jsonl-sink.js';
import { createModel } from '../../src/sim/models/index.js';
import type { ServerModel } from '../../src/sim/models/model.js';
import { startMockServer } from '../../src/testing/index.js';
import { captureIo } from './command-io.js';

const dir = mkdtempSync(join(tmpdir(), 'ratewise-events-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs 120 requests, 8 at a time, through a ratewise client logging events; returns the log path. */
async function crawlWithEvents(model: ServerModel, name: string): Promise<string> {
  const server = await startMockServer({ model });
  const log = join(dir, `${name}.jsonl`);
  const sink = jsonlSink(log, { mode: 'truncate' });
  const client = createClient({
    maxConcurrency: 8,
    initialConcurrency: 8,
    retry: { maxAttempts: 1 },
    // Keep pushing, so the log shows the throttling (the guard would slow down and avoid it).
    latencyGuard: false,
    events: sink,
  });
  let next = 0;
  const worker = async () => {
    while (next < 120) {
      const response = await client.fetch(`${server.url}/p/${next++}`);
      await response.arrayBuffer();
    }
  };
  try {
    await Promise.all(Array.from({ length: 8 }, worker));
  } finally {
    await client.close();
    await sink.close();
    await server.close();
  }
  return log;
}

async function analyse(log: string) {
  const io = captureIo();
  expect(await runAnalyze(log, { window: 1, json: true }, io)).toBe(0);
  return JSON.parse(io.out());
}

describe('analyze and report on a real client event log', () => {
  it('reads the events the client writes: samples with timings, controller state, a tarpit verdict', async () => {
    // Free for the first 40 requests a second, then every request is held 150 ms before its first byte.
    const log = await crawlWithEvents(
      createModel('tarpit', { rate: 40, delayMs: 150, latencyMs: 5 }),
      'tarpit',
    );
    const analysis = await analyse(log);
    expect(analysis.lines.malformed).toBe(0);
    expect(analysis.lines.byFormat.event).toBeGreaterThanOrEqual(120);
    expect(analysis.totals.requests).toBe(120);
    expect(analysis.phases.verdict).toBe('tarpit');
    expect(analysis.windows[0].limit).toBeGreaterThan(0);
    expect(analysis.windows[0].inflightMax).toBeGreaterThan(0);
    // The first second mixes the 40 free requests with held ones, so its median wait can fall
    // either side; from then on the held requests keep the client over its free rate.
    const last = analysis.windows[analysis.windows.length - 1];
    expect(last.phases.waitMs).toBeGreaterThan(100);
    for (const window of analysis.windows) expect(window.phases.waitMs).toBeGreaterThanOrEqual(0);

    const out = join(dir, 'events.html');
    expect(await runReport(log, { out }, captureIo())).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('id="chart-control"');
    expect(html).toMatch(/Phases<\/th><td>tarpit: /);
  });

  it('tells a byte-drip (the body trickles, the first byte is quick) from a tarpit', async () => {
    const model = createModel('drip', {
      rate: 40,
      bodyBytes: 4000,
      bytesPerSecond: 20_000,
      latencyMs: 5,
    });
    const analysis = await analyse(await crawlWithEvents(model, 'drip'));
    expect(analysis.totals.requests).toBe(120);
    expect(analysis.phases.verdict).toBe('byte-drip');
    expect(analysis.diagnosis.verdict).toBe('soft-throttling');
  });
});
