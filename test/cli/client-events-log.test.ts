import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runAnalyze } from '../../src/cli/analyze.js';
import { runReport } from '../../src/cli/report.js';
import { createClient } from '../../src/client/client.js';
import { jsonlSink } from '../../src/events/jsonl-sink.js';
import { createModel } from '../../src/sim/models/index.js';
import { startMockServer } from '../../src/testing/index.js';
import { captureIo } from './command-io.js';

const dir = mkdtempSync(join(tmpdir(), 'ratewise-events-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('analyze and report on a real client event log', () => {
  it('reads the events the client writes: samples with timings, controller state, a tarpit verdict', async () => {
    // Free for the first 40 requests a second, then every request is held 150 ms before its first byte.
    const server = await startMockServer({
      model: createModel('tarpit', { rate: 40, delayMs: 150, latencyMs: 5 }),
    });
    const log = join(dir, 'events.jsonl');
    const sink = jsonlSink(log, { mode: 'truncate' });
    const client = createClient({
      maxConcurrency: 8,
      initialConcurrency: 8,
      retry: { maxAttempts: 1 },
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

    const io = captureIo();
    expect(await runAnalyze(log, { window: 1, json: true }, io)).toBe(0);
    const analysis = JSON.parse(io.out());
    expect(analysis.lines.malformed).toBe(0);
    expect(analysis.lines.byFormat.event).toBeGreaterThanOrEqual(120);
    expect(analysis.totals.requests).toBe(120);
    expect(analysis.phases.verdict).toBe('tarpit');
    expect(analysis.windows[0].limit).toBeGreaterThan(0);
    expect(analysis.windows[0].inflightMax).toBeGreaterThan(0);
    expect(analysis.windows[0].phases.waitMs).toBeLessThan(100);

    const out = join(dir, 'events.html');
    expect(await runReport(log, { out }, captureIo())).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('id="chart-control"');
    expect(html).toMatch(/Phases<\/th><td>tarpit: /);
  });
});
