import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_LINE_LENGTH } from '../../src/analyze/parse-line.js';
import { analyzeLog, readLogLines } from '../../src/analyze/read-log.js';

async function collect(source: Readable): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of readLogLines(source)) lines.push(line);
  return lines;
}

/** `count` chunks of 64 KiB of `x`, without a newline. */
function* filler(count: number): Generator<Buffer> {
  for (let i = 0; i < count; i++) yield Buffer.alloc(65_536, 'x');
}

describe('readLogLines', () => {
  it('splits on \\n and \\r\\n, keeps a last line without a newline, and joins characters split across chunks', async () => {
    const euro = Buffer.from('€'); // three bytes, split over two chunks
    const chunks = [
      Buffer.from('a\r\nb\n\nc '),
      euro.subarray(0, 1),
      Buffer.concat([euro.subarray(1), Buffer.from('\nlast')]),
    ];
    expect(await collect(Readable.from(chunks))).toEqual(['a', 'b', '', 'c €', 'last']);
  });

  it('holds at most the cap of a line with no newline, and the line still reads as too long', async () => {
    // 3 MiB without a newline, then a good line: the long one is cut short, never held whole.
    const source = Readable.from(
      (function* () {
        yield* filler(48);
        yield Buffer.from('\n2026-01-31T04:00:00Z https://a.example/ 5\n');
      })(),
    );
    const lines = await collect(source);
    expect(lines).toHaveLength(2);
    expect(lines[0]?.length).toBeGreaterThan(MAX_LINE_LENGTH);
    expect(lines[0]?.length).toBeLessThanOrEqual(MAX_LINE_LENGTH + 2);
    expect(lines[1]).toBe('2026-01-31T04:00:00Z https://a.example/ 5');

    const a = await analyzeLog(Readable.from(filler(48)));
    expect(a.lines).toMatchObject({ total: 1, malformed: 1 });
    expect(a.malformedExamples[0]?.reason).toMatch(/longer than/);
  });

  it('a line of exactly the cap, ended by \\r\\n, is kept whole', async () => {
    const line = 'y'.repeat(MAX_LINE_LENGTH);
    expect(await collect(Readable.from([`${line}\r\n`, `y${line}\r\n`]))).toEqual([
      line,
      `y${line}`.slice(0, MAX_LINE_LENGTH + 1),
    ]);
  });
});
