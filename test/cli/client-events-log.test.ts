import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

/** Requests per crawl: the first half go free, the second half are penalised. */
const REQUESTS = 24;
/**
 * The model's free rate, over a window longer than any run: a count (the
 * first 12 requests), not a rate, so which requests are penalised does not
 * depend on how fast a loaded machine sends them. The analysis compares the
 * first 12 (all free) with the last 12 (all penalised).
 */
const FREE_HALF = { rate: REQUESTS / 2 / 60, windowMs: 60_000 } as const;

/** Runs `count` requests, 8 at a time, through a ratewise client logging events; returns the log path. */
async function crawlWithEvents(
  model: ServerModel,
  name: string,
  count = REQUESTS,
): Promise<string> {
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
    while (next < count) {
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

// The client's and the mock server's code warmed up first: on a loaded machine a cold process
// took ~550 ms over its first requests, which would be read as the free requests' time.
beforeAll(() => crawlWithEvents(createModel('healthy', { latencyMs: 5 }), 'warm-up', 24));

async function analyse(log: string) {
  const io = captureIo();
  expect(await runAnalyze(log, { window: 1, json: true }, io)).toBe(0);
  return JSON.parse(io.out());
}

describe('analyze and report on a real client event log', () => {
  it('reads the events the client writes: samples with timings, controller state, a tarpit verdict', async () => {
    // A penalised request is held 2 s before its first byte: its server wait is at least that
    // on any schedule, so the verdict holds while the free requests' median (5 ms unloaded,
    // 230-540 ms measured at load 13 on 2 cores) stays under half of it.
    const log = await crawlWithEvents(
      createModel('tarpit', { ...FREE_HALF, delayMs: 2000, latencyMs: 5 }),
      'tarpit',
    );
    const analysis = await analyse(log);
    expect(analysis.lines.malformed).toBe(0);
    expect(analysis.lines.byFormat.event).toBeGreaterThanOrEqual(REQUESTS);
    expect(analysis.totals.requests).toBe(REQUESTS);
    expect(analysis.phases.verdict).toBe('tarpit');
    expect(analysis.windows[0].limit).toBeGreaterThan(0);
    expect(analysis.windows[0].inflightMax).toBeGreaterThan(0);
    // The last 12 requests, the analysis's current end, were all held: each waited the whole hold.
    expect(analysis.phases.medians.waitMs).toBeGreaterThanOrEqual(2000);
    const timed = analysis.windows.filter((window: { phases: unknown }) => window.phases !== null);
    expect(timed.length).toBeGreaterThan(0);
    for (const window of timed) expect(window.phases.waitMs).toBeGreaterThanOrEqual(0);

    const out = join(dir, 'events.html');
    expect(await runReport(log, { out }, captureIo())).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('id="chart-control"');
    expect(html).toMatch(/Phases<\/th><td>tarpit: /);
  });

  it('tells a byte-drip (the body trickles, the first byte is quick) from a tarpit', async () => {
    // A penalised body of 4000 bytes drips at 2000 bytes/s: 2 s on any schedule.
    const model = createModel('drip', {
      ...FREE_HALF,
      bodyBytes: 4000,
      bytesPerSecond: 2000,
      latencyMs: 5,
    });
    const analysis = await analyse(await crawlWithEvents(model, 'drip'));
    expect(analysis.totals.requests).toBe(REQUESTS);
    expect(analysis.phases.verdict).toBe('byte-drip');
    expect(analysis.diagnosis.verdict).toBe('soft-throttling');
  });
});
