import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../client/helpers.js';
import { ensureBuilt, runCli } from './cli-process.js';

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'ratewise-secrets-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the CLI prints no secrets', () => {
  it('crawl: the error text in results.jsonl hides passwords and tokens', async () => {
    const server = await startServer((_req, res) => res.end('ok'));
    try {
      const input = join(dir, 'secret-urls.txt');
      const withPassword = server.url.replace('http://', 'http://alice:hunter2@');
      writeFileSync(input, `http://127.0.0.1:1/x?token=s3cr3t\n${withPassword}/y\n`);
      const out = join(dir, 'secret.jsonl');
      const run = await runCli(['crawl', input, '--out', out], dir);
      expect(run.code).toBe(0);
      const errors = readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { error: string | null }).error);
      expect(errors).toHaveLength(2);
      for (const error of errors) {
        expect(error).toMatch(/\*\*\*/);
        expect(error).not.toMatch(/s3cr3t|hunter2/);
      }
      expect(server.seen).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('crawl: a file of no crawlable line names the first one without its password or token', async () => {
    const input = join(dir, 'no-url.txt');
    writeFileSync(input, 'https://alice:hunter2@example.com/?token=s3cr3t and words\n');
    const run = await runCli(['crawl', input, '--out', join(dir, 'no-url.jsonl')], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /line 1: not one URL: .*https:\/\/\*\*\*@example\.com\/\?token=\*\*\*/,
    );
    expect(run.stderr + run.stdout).not.toMatch(/s3cr3t|hunter2/);
  });

  it('probe: neither the table nor --json shows the token', async () => {
    const url = 'http://127.0.0.1:1/?token=s3cr3t';
    const table = await runCli(['probe', url, '-n', '1'], dir);
    expect(table.stdout).toMatch(/probe http:\/\/127\.0\.0\.1:1\/\?token=\*\*\*: 1 requests/);
    const json = await runCli(['probe', url, '-n', '1', '--json'], dir);
    for (const output of [table.stdout + table.stderr, json.stdout + json.stderr]) {
      expect(output).not.toContain('s3cr3t');
    }
  });
});
