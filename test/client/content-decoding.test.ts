import { deflateRawSync, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decoders } from '../../src/client/content-decoding.js';

const MIB = 1_048_576;

/** The one decoder of a `deflate` response. */
function inflater() {
  const stages = decoders(200, { 'content-encoding': 'deflate' }, false);
  if (stages?.length !== 1) throw new Error('expected one decoder');
  return stages[0];
}

describe('the deflate decoder', () => {
  it.each([
    ['zlib', deflateSync],
    ['raw', deflateRawSync],
  ])('holds back while nobody reads a %s bomb, then decodes all of it', async (_form, deflate) => {
    const bomb = deflate(Buffer.alloc(16 * MIB));
    const stage = inflater();
    let taken = false;
    stage.write(bomb, () => {
      taken = true;
    });
    // Give the inflater time to decode it all, were nothing holding it back.
    for (let i = 0; i < 40 && stage.readableLength <= MIB; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(stage.readableLength).toBeLessThanOrEqual(MIB);
    expect(taken).toBe(false); // the write waits for the reader
    let decoded = 0;
    stage.on('data', (chunk: Buffer) => {
      decoded += chunk.length;
    });
    await new Promise((resolve) => stage.end(resolve));
    expect(taken).toBe(true);
    expect(decoded).toBe(16 * MIB);
  });
});
