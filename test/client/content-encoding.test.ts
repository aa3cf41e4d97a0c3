import { brotliDecompressSync, constants, gunzipSync } from 'node:zlib';
import { Agent, request, fetch as undiciFetch } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type RatewiseClient } from '../../src/client/client.js';
import { ratewiseInterceptor } from '../../src/client/interceptor.js';
import { ratewiseInfo } from '../../src/client/response-info.js';
import { type HostileServer, startHostileServer } from '../../src/testing/hostile-server.js';

let hostile: HostileServer | undefined;
let client: RatewiseClient | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await client?.close();
  await agent?.close();
  await hostile?.close();
  client = undefined;
  agent = undefined;
  hostile = undefined;
});

const MIB = 1_048_576;

/** Reads a body to the end, counting bytes; resolves with the count or the error. */
async function countBody(body: ReadableStream<Uint8Array> | null): Promise<number | Error> {
  let bytes = 0;
  try {
    for await (const chunk of body ?? []) bytes += chunk.byteLength;
    return bytes;
  } catch (error) {
    return Object.assign(error as Error, { bytesRead: bytes });
  }
}

describe('client.fetch decodes Content-Encoding as fetch does', () => {
  it.each(['gzip', 'deflate', 'br'])('%s', async (encoding) => {
    hostile = await startHostileServer();
    client = createClient();
    const response = await client.fetch(`${hostile.url}/json?encoding=${encoding}`);
    expect(await response.json()).toEqual({ ok: true, encoding });
    expect(response.headers.get('content-encoding')).toBe(encoding); // kept, as fetch keeps it
  });

  it('caps the decoded size: a bomb fails after maxBodyBytes, and the scope is freed', async () => {
    hostile = await startHostileServer();
    client = createClient({ maxBodyBytes: MIB });
    const response = await client.fetch(`${hostile.url}/bomb?encoding=br&bytes=${64 * MIB}`);
    const read = await countBody(response.body);
    expect(read).toBeInstanceOf(Error);
    expect(String(read)).toMatch(/decoded response body of \d+ bytes or more exceeds maxBodyBytes/);
    expect((read as Error & { bytesRead: number }).bytesRead).toBeLessThanOrEqual(MIB);
    await ratewiseInfo(response)?.settled;
    const scope = client.registry.get(`host:${new URL(hostile.url).host}`);
    expect(scope?.inflight).toBe(0);
  });

  // The inflater waited for its inner stream to end a second time: the body never ended.
  it.each(['deflate', 'br', 'gzip, br'])(
    'ends a %s body followed by stray bytes, as fetch does',
    async (encoding) => {
      hostile = await startHostileServer();
      client = createClient({ timeoutMs: 5000 });
      const response = await client.fetch(
        `${hostile.url}/json?encoding=${encodeURIComponent(encoding)}&trailing=stray%20bytes`,
      );
      const text = await Promise.race([response.text(), settledAfter(2000, 'still reading')]);
      expect(text).toBe(JSON.stringify({ ok: true, encoding }));
    },
  );
});

/** Resolves with `value` after `ms` of real time (a hang becomes a failed expectation). */
function settledAfter<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms).unref());
}

/** What `bytes` handed on with `gzip, br` decode to, as leniently as fetch decodes. */
function decodedSize(bytes: Buffer): number {
  const gzipped = brotliDecompressSync(bytes, { finishFlush: constants.BROTLI_OPERATION_FLUSH });
  return gunzipSync(gzipped, { finishFlush: constants.Z_SYNC_FLUSH }).length;
}

describe('ratewiseInterceptor caps what a compressed body decodes to', () => {
  it('undici fetch through the interceptor: a brotli bomb fails after maxBodyBytes', async () => {
    hostile = await startHostileServer();
    agent = new Agent();
    const dispatcher = agent.compose(ratewiseInterceptor({ maxBodyBytes: MIB }));
    const response = await undiciFetch(`${hostile.url}/bomb?encoding=br&bytes=${64 * MIB}`, {
      dispatcher,
    });
    const read = await countBody(response.body as ReadableStream<Uint8Array>);
    expect(read).toBeInstanceOf(Error);
    expect((read as Error & { bytesRead: number }).bytesRead).toBeLessThanOrEqual(MIB);
  });

  // The meter counted a chunk once the first decoder had taken it, before the second had
  // decoded it: 60 bytes handed on decoded to 200,000 past a 65,536-byte cap.
  it('a stacked coding (gzip, br): what request() is handed decodes to maxBodyBytes at most', async () => {
    hostile = await startHostileServer();
    agent = new Agent();
    const dispatcher = agent.compose(ratewiseInterceptor({ maxBodyBytes: 65_536 }));
    const chunks: Buffer[] = [];
    let failure: unknown;
    try {
      const raw = await request(`${hostile.url}/bomb?encoding=gzip,br&bytes=${MIB}`, {
        dispatcher,
      });
      for await (const chunk of raw.body) chunks.push(chunk);
    } catch (error) {
      failure = error;
    }
    expect(String(failure)).toMatch(/exceeds maxBodyBytes/);
    expect(decodedSize(Buffer.concat(chunks))).toBeLessThanOrEqual(65_536);
  });

  it('leaves bodies within the cap as they were: fetch decodes them, request gets the bytes sent', async () => {
    hostile = await startHostileServer();
    agent = new Agent();
    const dispatcher = agent.compose(ratewiseInterceptor({ maxBodyBytes: MIB }));
    const fetched = await undiciFetch(`${hostile.url}/json?encoding=gzip`, { dispatcher });
    expect(await fetched.json()).toEqual({ ok: true, encoding: 'gzip' });
    const raw = await request(`${hostile.url}/json?encoding=gzip`, { dispatcher });
    expect(raw.headers['content-encoding']).toBe('gzip');
    const bytes = Buffer.from(await raw.body.arrayBuffer());
    expect(JSON.parse(gunzipSync(bytes).toString())).toEqual({ ok: true, encoding: 'gzip' });
    const big = await undiciFetch(`${hostile.url}/bomb?encoding=gzip&bytes=${MIB / 2}`, {
      dispatcher,
    });
    expect(await countBody(big.body as ReadableStream<Uint8Array>)).toBe(MIB / 2);
  });
});
