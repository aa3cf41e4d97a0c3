import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/client.js';
import { timedConnect } from '../../src/client/connection-timings.js';
import { ratewiseTimings } from '../../src/client/response-info.js';

/** A throwaway self-signed certificate, when the machine has openssl. */
function selfSigned(): { key: Buffer; cert: Buffer } | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'ratewise-tls-'));
  try {
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(key), cert: readFileSync(cert) };
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const credentials = selfSigned();

describe('phase timings over TLS', () => {
  it.skipIf(credentials === undefined)(
    'times DNS, TCP connect and the TLS handshake of a new connection',
    async () => {
      const server = createServer(credentials ?? {}, (_req, res) => res.end('secure'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const agent = new Agent({ connect: timedConnect({ rejectUnauthorized: false, family: 4 }) });
      const client = createClient({ dispatcher: agent });
      try {
        const response = await client.fetch(
          `https://localhost:${(server.address() as AddressInfo).port}/`,
        );
        expect(await response.text()).toBe('secure');
        const timings = ratewiseTimings(response);
        expect(timings?.dnsMs).toBeGreaterThan(0); // "localhost" is looked up
        expect(timings?.connectMs).toBeGreaterThan(0);
        expect(timings?.tlsMs).toBeGreaterThan(0);
        const handshakes =
          (timings?.dnsMs ?? 0) + (timings?.connectMs ?? 0) + (timings?.tlsMs ?? 0);
        expect(timings?.ttfbMs).toBeGreaterThanOrEqual(handshakes);
      } finally {
        await agent.close();
        server.closeAllConnections();
        server.close();
      }
    },
  );
});
