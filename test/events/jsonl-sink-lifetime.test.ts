import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/client.js';
import { jsonlSink } from '../../src/events/jsonl-sink.js';
import { createModel } from '../../src/sim/models/index.js';
import { startMockServer } from '../../src/testing/index.js';
import { settle, VirtualClock } from '../../src/virtual-clock.js';
import { ensureBuilt } from '../cli/cli-process.js';
import { makeEvent } from './fixtures.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ratewise-sink-life-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function lines(path: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(path, 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

const DIST = join(import.meta.dirname, '..', '..', 'dist', 'index.js');

/** Runs an ES module in a fresh node process (flags first); resolves with its stderr. */
async function runScript(source: string, flags: string[] = []): Promise<string> {
  ensureBuilt();
  const { stderr } = await promisify(execFile)(
    process.execPath,
    [...flags, '--input-type=module', '-e', source],
    { timeout: 15_000 },
  );
  return stderr;
}

describe('jsonlSink: run boundaries and lifetime', () => {
  it('starts each run with a run-start line: id, monotonic and wall-clock start', async () => {
    const path = join(dir, 'runs.jsonl');
    const clock = new VirtualClock({ start: 500, wallStart: Date.UTC(2026, 2, 1) });
    for (const i of [1, 2]) {
      const sink = jsonlSink(path, { clock });
      sink(makeEvent(i));
      await sink.close();
      await clock.advance(60_000);
    }
    const [first, , second, event] = await lines(path);
    expect(first).toMatchObject({ type: 'run', t: 500, wall: Date.UTC(2026, 2, 1) });
    expect(first?.started).toBe('2026-03-01T00:00:00.000Z');
    expect(first?.run).toMatch(/^2026-03-01T00:00:00\.000Z-[0-9a-f]{8}$/);
    expect(second).toMatchObject({ type: 'run', t: 60_500 });
    expect(second?.run).not.toBe(first?.run);
    expect(event).toEqual(makeEvent(2));
  });

  it('writes nothing, not even the run line, for a run without events', async () => {
    const path = join(dir, 'empty.jsonl');
    await jsonlSink(path).close();
    expect(await readFile(path, 'utf8')).toBe('');
  });

  it('writes a slow run’s events within flushIntervalMs, without waiting for the buffer to fill', async () => {
    const path = join(dir, 'slow.jsonl');
    const clock = new VirtualClock();
    const sink = jsonlSink(path, { clock, flushIntervalMs: 1000 });
    sink(makeEvent(1));
    await clock.advance(999);
    await settle();
    expect(await readFile(path, 'utf8')).toBe('');
    await clock.advance(1);
    await sink.flush(); // the write the timer issued has landed (nothing else to write)
    expect((await lines(path)).map((l) => l.type)).toEqual(['run', 'sample']);
    sink(makeEvent(2));
    await clock.advance(1000);
    await settle();
    await sink.flush();
    expect(await lines(path)).toHaveLength(3);
    expect(clock.pendingTimers).toBe(0); // no timer while the buffer is empty
    await sink.close();
  });

  it('client.close() flushes the events sink it was given (the README example)', async () => {
    const server = await startMockServer({ model: createModel('healthy', { latencyMs: 1 }) });
    const path = join(dir, 'client.jsonl');
    const client = createClient({ events: jsonlSink(path, { flushIntervalMs: Infinity }) });
    try {
      const response = await client.fetch(`${server.url}/item/1`);
      await response.text();
    } finally {
      await client.close();
      await server.close();
    }
    const written = await lines(path);
    expect(written[0]?.type).toBe('run');
    expect(written.some((line) => line.type === 'sample' && line.status === 200)).toBe(true);
  });

  it('warns on stderr when the process exits with events unwritten', async () => {
    const path = join(dir, 'exit.jsonl');
    const stderr = await runScript(
      `import { jsonlSink } from ${JSON.stringify(DIST)};
       const sink = jsonlSink(${JSON.stringify(path)}, { flushIntervalMs: Infinity });
       sink(${JSON.stringify(makeEvent(1))}); sink(${JSON.stringify(makeEvent(2))});
       process.exit(0);`,
    );
    expect(stderr).toMatch(
      /jsonlSink\(exit\.jsonl\) lost 2 event\(s\): the process exited before they were written; await its close\(\)/,
    );
  });

  it('warns when an unclosed sink holding events is garbage-collected; a closed one is silent', async () => {
    const stderr = await runScript(
      `import { jsonlSink } from ${JSON.stringify(DIST)};
       const event = ${JSON.stringify(makeEvent(1))};
       (() => { jsonlSink(${JSON.stringify(join(dir, 'gc.jsonl'))}, { flushIntervalMs: Infinity })(event); })();
       const kept = jsonlSink(${JSON.stringify(join(dir, 'kept.jsonl'))});
       kept(event);
       await kept.close();
       for (let i = 0; i < 20; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 5)); }`,
      ['--expose-gc'],
    );
    expect(stderr).toMatch(
      /jsonlSink\(gc\.jsonl\) lost 1 event\(s\): the sink was garbage-collected/,
    );
    expect(stderr).not.toMatch(/kept\.jsonl/);
  });
});
