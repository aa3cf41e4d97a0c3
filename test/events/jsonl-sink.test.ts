import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonlSink } from '../../src/events/jsonl-sink.js';
import { makeEvent } from './fixtures.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ratewise-jsonl-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readAll(path: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(path, 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

/** The lines of a log other than its run-start lines. */
async function readLines(path: string): Promise<unknown[]> {
  return (await readAll(path)).filter((line) => line.type !== 'run');
}

/** A stream whose writes complete only after a delay, recording how many were pending at once. */
class SlowStream extends Writable {
  readonly received: string[] = [];
  writes = 0;
  /** Most characters ever queued in the stream behind the write in progress. */
  maxQueued = 0;
  constructor() {
    super({ highWaterMark: 16, decodeStrings: false });
  }
  override _write(chunk: string, _encoding: string, done: (error?: Error | null) => void): void {
    this.writes += 1;
    this.maxQueued = Math.max(this.maxQueued, this.writableLength - chunk.length);
    setImmediate(() => {
      this.received.push(chunk);
      done();
    });
  }
}

describe('jsonlSink', () => {
  it('writes 100,000 events as JSON lines in few writes, and reads back identical', async () => {
    const path = join(dir, 'nested', 'deeper', 'events.jsonl');
    const sink = jsonlSink(path);
    const events = Array.from({ length: 100_000 }, (_, i) => makeEvent(i));
    for (const event of events) sink(event);
    await sink.close();
    const back = await readLines(path);
    expect(back).toHaveLength(100_000);
    expect(back).toEqual(events);
    expect(back[0]).toHaveProperty('rate', null);
  });

  it('batches writes to a stream and keeps only one write in flight (backpressure)', async () => {
    const stream = new SlowStream();
    const sink = jsonlSink(stream, { bufferSize: 4096, runStart: false });
    for (let i = 0; i < 20_000; i++) {
      sink(makeEvent(i));
      if (i % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await sink.flush();
    const lines = stream.received.join('').split('\n').filter(Boolean);
    expect(lines).toHaveLength(20_000);
    expect(JSON.parse(lines[19_999] as string)).toEqual(makeEvent(19_999));
    expect(stream.writes).toBeLessThan(20_000 / 10);
    // The sink waits for each write to complete, so nothing ever queues up inside the stream.
    expect(stream.maxQueued).toBe(0);
    expect(stream.writes).toBeGreaterThan(10);
    await sink.close();
    expect(stream.writableEnded).toBe(true);
  });

  it('flush() resolves once everything received so far is in the file', async () => {
    const path = join(dir, 'flush.jsonl');
    const sink = jsonlSink(path, { mode: 'truncate' });
    sink(makeEvent(1));
    sink(makeEvent(2));
    expect(await readFile(path, 'utf8')).toBe('');
    await sink.flush();
    expect(await readLines(path)).toEqual([makeEvent(1), makeEvent(2)]);
    sink(makeEvent(3));
    await sink.flush();
    expect(await readLines(path)).toHaveLength(3);
    await sink.close();
  });

  it('appends by default and truncates on request', async () => {
    const path = join(dir, 'modes.jsonl');
    await writeFile(path, `${JSON.stringify({ old: true })}\n`);
    const appending = jsonlSink(path);
    appending(makeEvent(1));
    await appending.close();
    expect(await readLines(path)).toEqual([{ old: true }, makeEvent(1)]);
    const truncating = jsonlSink(path, { mode: 'truncate' });
    truncating(makeEvent(2));
    await truncating.close();
    expect(await readLines(path)).toEqual([makeEvent(2)]);
  });

  it('reports a failing stream once, and flush/close reject with its error', async () => {
    const failing = new Writable({
      write(_chunk, _encoding, done) {
        done(new Error('disk full'));
      },
    });
    const errors: unknown[] = [];
    const sink = jsonlSink(failing, { bufferSize: 0, onError: (error) => errors.push(error) });
    sink(makeEvent(1));
    await expect(sink.flush()).rejects.toThrow('disk full');
    sink(makeEvent(2));
    await expect(sink.close()).rejects.toThrow('disk full');
    expect(errors).toHaveLength(1);
  });

  it('drops and reports events after close(); leaves the stream open with end: false', async () => {
    const stream = new SlowStream();
    const errors: unknown[] = [];
    const sink = jsonlSink(stream, {
      end: false,
      runStart: false,
      onError: (error) => errors.push(error),
    });
    sink(makeEvent(1));
    await sink.close();
    await sink.close();
    sink(makeEvent(2));
    expect(stream.writableEnded).toBe(false);
    expect(stream.received.join('')).toBe(`${JSON.stringify(makeEvent(1))}\n`);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'ERR_RATEWISE_SINK_CLOSED' });
  });

  it('validates options and fails fast on an unusable path', () => {
    const stream = new SlowStream();
    expect(() => jsonlSink(stream, { bufferSize: -1 })).toThrow(
      /`bufferSize` must be an integer >= 0/,
    );
    expect(() => jsonlSink(stream, { mode: 'append' })).toThrow(/`mode`.*path/);
    expect(() => jsonlSink(join(dir, 'x.jsonl'), { end: false })).toThrow(/`end`.*stream/);
    expect(() => jsonlSink(join(dir, 'y.jsonl'), { mode: 'replace' as never })).toThrow(
      /`mode` must be one of "append", "truncate"/,
    );
    expect(() => jsonlSink(stream, { onError: 'log' as never })).toThrow(
      /`onError` must be a function/,
    );
    expect(() => jsonlSink(stream, { buffer: 1 } as never)).toThrow(/unknown option `buffer`/);
    expect(() => jsonlSink(stream, { flushIntervalMs: 0 })).toThrow(
      /`flushIntervalMs` must be a number > 0 \(or Infinity\)/,
    );
    expect(() => jsonlSink(stream, { runStart: 'yes' as never })).toThrow(/`runStart`/);
    expect(() => jsonlSink(stream, { clock: {} as never })).toThrow(/`clock` must be a Clock/);
    expect(() => jsonlSink(dir)).toThrow(/EISDIR/);
  });
});
