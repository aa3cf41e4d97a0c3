import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../client/helpers.js';
import { ensureBuilt, runCli, startCli } from './cli-process.js';

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'ratewise-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ratewise serve-mock', () => {
  it('--list prints the catalog', async () => {
    const run = await runCli(['serve-mock', '--list'], dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^fixed-window: .*\n {4}rate: /m);
    expect(run.stdout).toMatch(/^token-bucket: /m);
  });

  it('serves a model on loopback, prints its URL as JSON and stops on SIGTERM', async () => {
    const server = startCli(
      ['serve-mock', '--model', 'fixed-window', '--rate', '2', '--latency-ms', '0', '--json'],
      dir,
    );
    const { url } = JSON.parse(await firstLine(server.child.stdout));
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${url}/x`)).status);
    expect(statuses).toEqual([200, 200, 429]);
    server.child.kill('SIGTERM');
    expect((await server.done).code).toBe(0);
  });
});

describe('ratewise probe', () => {
  it('prints a per-phase table with a healthy verdict', async () => {
    const server = await startServer((_req, res) => res.end('fine'));
    try {
      const run = await runCli(['probe', server.url, '-n', '4'], dir);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^ *# +status +dns +connect +tls +ttfb +total +bytes$/m);
      expect(run.stdout.match(/^ *\d +200 /gm)).toHaveLength(4);
      expect(run.stdout).toMatch(/^ *median +(\S+ ms +){3}\S+ ms *$/m); // dns, connect, tls, total
      expect(run.stdout).toMatch(
        /^median server wait \S+ ms \(first byte after the handshakes\), body \S+ ms$/m,
      );
      expect(run.stdout).toMatch(/^verdict: healthy — /m);
    } finally {
      await server.close();
    }
  });

  it('--json: a server that holds the first byte is a tarpit; fresh connections are timed', async () => {
    const server = await startServer((_req, res) => setTimeout(() => res.end('late'), 1100));
    try {
      const run = await runCli(['probe', server.url, '-n', '2', '--json'], dir);
      const report = JSON.parse(run.stdout);
      expect(report.diagnosis.verdict).toBe('tarpit');
      expect(report.samples).toHaveLength(2);
      for (const sample of report.samples) expect(sample.timings.connectMs).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  it('exits 1 when no request gets a response', async () => {
    const run = await runCli(['probe', 'http://127.0.0.1:1/', '-n', '1'], dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/error: fetch failed/);
  });
});

function firstLine(stream: NodeJS.ReadableStream | null): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream?.on('data', (chunk) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end !== -1) resolve(text.slice(0, end));
    });
    stream?.on('end', () => reject(new Error(`no line: ${text}`)));
  });
}
