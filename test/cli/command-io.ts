import { PassThrough, Readable } from 'node:stream';
import type { CommandIo } from '../../src/cli/analyze.js';

/** Command streams that collect what is written. */
export function captureIo(stdinText = ''): CommandIo & { out(): string; err(): string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const chunks = { out: [] as Buffer[], err: [] as Buffer[] };
  stdout.on('data', (c: Buffer) => chunks.out.push(c));
  stderr.on('data', (c: Buffer) => chunks.err.push(c));
  return {
    stdout,
    stderr,
    stdin: Readable.from([stdinText]),
    out: () => Buffer.concat(chunks.out).toString(),
    err: () => Buffer.concat(chunks.err).toString(),
  };
}
