import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type RatewiseClient } from '../../src/client/client.js';
import { RedirectError } from '../../src/errors.js';
import { type HostileServer, startHostileServer } from '../../src/testing/hostile-server.js';
import { startServer, type TestServer } from './helpers.js';

let hostile: HostileServer | undefined;
let server: TestServer | undefined;
let client: RatewiseClient | undefined;
afterEach(async () => {
  await client?.close();
  await hostile?.close();
  await server?.close();
  client = undefined;
  hostile = undefined;
  server = undefined;
});

/** The error's message and its causes' messages, joined. */
function allMessages(error: unknown): string {
  const messages: string[] = [];
  for (
    let e = error as { message?: string; cause?: unknown } | undefined;
    e;
    e = e.cause as typeof e
  ) {
    messages.push(String(e.message));
  }
  return messages.join(' | ');
}

describe('credentials in URLs', () => {
  it('a user:pass@ URL is refused as fetch refuses it (TypeError), not sent without them', async () => {
    server = await startServer((_req, res) => res.end('ok'));
    client = createClient();
    const url = server.url.replace('http://', 'http://alice:hunter2@');
    const error = await client.fetch(url).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(String(error)).toMatch(/includes credentials: http:\/\/\*\*\*@127\.0\.0\.1/);
    expect(allMessages(error)).not.toContain('hunter2');
    expect(server.seen).toHaveLength(0);
  });

  it('a redirect to a URL with credentials is refused', async () => {
    server = await startServer((_req, res) =>
      res.writeHead(302, { location: 'http://bob:s3cr3t@127.0.0.1:1/next' }).end(),
    );
    client = createClient();
    const error = await client.fetch(server.url).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedirectError);
    expect(allMessages(error)).not.toContain('s3cr3t');
  });
});

describe('secrets in error messages', () => {
  it('a refused connection: the token value is hidden', async () => {
    client = createClient();
    const error = await client
      .fetch('http://127.0.0.1:1/x?token=s3cr3t&page=2')
      .catch((e: unknown) => e);
    expect(String(error)).toMatch(/http:\/\/127\.0\.0\.1:1\/x\?token=\*\*\*&page=2/);
    expect(allMessages(error)).not.toContain('s3cr3t');
  });

  it('a timeout: neither the error nor its cause shows the api key', async () => {
    hostile = await startHostileServer();
    client = createClient({ timeoutMs: 50, retry: { maxAttempts: 1 } });
    const error = await client.fetch(`${hostile.url}/hang?api_key=s3cr3t`).catch((e: unknown) => e);
    expect(allMessages(error)).toMatch(/api_key=\*\*\*/);
    expect(allMessages(error)).not.toContain('s3cr3t');
  });
});
