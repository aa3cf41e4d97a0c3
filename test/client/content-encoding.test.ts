import { gunzipSync } from 'node:zlib';
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
});

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
