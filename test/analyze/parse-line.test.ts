import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_LINE_LENGTH,
  parseLogLine,
  requestOfLine,
  requestOfSample,
} from '../../src/analyze/parse-line.js';
import { CLI, ensureBuilt } from '../cli/cli-process.js';

const timings = { dnsMs: 1, connectMs: 2, tlsMs: 3, ttfbMs: 40, totalMs: 55, bytes: 900 };

describe('parseLogLine', () => {
  it('reads a plain ISO8601 url latency_ms line, with an optional status', () => {
    const plain = parseLogLine('2026-01-31T04:00:01.500Z https://store.example.com/p/1 342');
    expect(plain).toEqual({
      kind: 'plain',
      request: {
        at: Date.parse('2026-01-31T04:00:01.500Z'),
        latencyMs: 342,
        host: 'store.example.com',
        failed: false,
      },
    });
    const withStatus = parseLogLine('2026-01-31T04:00:01Z https://a.example/x 12.5 429');
    expect(withStatus).toMatchObject({
      kind: 'plain',
      request: { status: 429, failed: true, latencyMs: 12.5 },
    });
  });

  it('reads a ratewise event, keeping its fields and dropping malformed optional ones', () => {
    const line = JSON.stringify({
      t: 1500,
      wall: 1_769_832_000_000,
      scope: 'host:a.example',
      type: 'sample',
      limit: 8,
      rate: null,
      inflight: 5,
      queued: 2,
      reason: 'ok',
      signal: 'ok',
      status: 200,
      rttMs: 55,
      timings,
      breaker: 'closed',
    });
    const parsed = parseLogLine(line);
    expect(parsed.kind).toBe('event');
    if (parsed.kind !== 'event') return;
    expect(parsed.event).toMatchObject({
      t: 1500,
      limit: 8,
      rate: null,
      inflight: 5,
      rttMs: 55,
      timings,
    });
    expect(requestOfSample(parsed.event)).toEqual({
      at: 1500,
      latencyMs: 55,
      status: 200,
      signal: 'ok',
      timings,
      host: 'a.example',
      failed: false,
    });
    const odd = parseLogLine(
      '{"t":1,"type":"limit","status":"x","rttMs":-5,"timings":{"dnsMs":"a"}}',
    );
    expect(odd).toMatchObject({ kind: 'event' });
    if (odd.kind === 'event') {
      expect(odd.event.status).toBeUndefined();
      expect(odd.event.rttMs).toBeUndefined();
      expect(odd.event.timings).toBeUndefined();
      expect(odd.event.limit).toBeNaN();
    }
  });

  it('reads a crawl result: time from at/wall/ISO fields, latency from timings, failure from error or signal', () => {
    const result = parseLogLine(
      JSON.stringify({
        url: 'http://127.0.0.1:8080/a',
        status: 503,
        signal: 'overloaded',
        attempts: 2,
        timings,
        wall: 5000,
      }),
    );
    expect(result).toEqual({
      kind: 'result',
      request: {
        at: 5000,
        status: 503,
        signal: 'overloaded',
        timings,
        latencyMs: 55,
        host: '127.0.0.1:8080',
        failed: true,
      },
    });
    const iso = parseLogLine(
      '{"url":"https://x.example/","error":"ECONNRESET","finishedAt":"2026-01-31T04:00:00Z"}',
    );
    expect(iso).toMatchObject({
      kind: 'result',
      request: { at: Date.parse('2026-01-31T04:00:00Z'), failed: true },
    });
    const untimed = parseLogLine('{"url":"not a url","status":200,"signal":"ok"}');
    expect(untimed).toEqual({
      kind: 'result',
      request: { status: 200, signal: 'ok', failed: false },
    });
  });

  it('a crawl result never sent (attempts 0) is not a request, let alone a failed one', () => {
    const line =
      '{"url":"ftp://x","status":null,"signal":null,"attempts":0,"error":"not an http(s) URL"}';
    expect(parseLogLine(line)).toEqual({ kind: 'unsent' });
    expect(requestOfLine(parseLogLine(line))).toBeUndefined();
    expect(parseLogLine('{"url":"http://a.example/","attempts":1,"error":"x"}')).toMatchObject({
      kind: 'result',
      request: { failed: true, host: 'a.example' },
    });
  });

  it('reads timestamps without a zone as UTC, whatever the machine', () => {
    // A worker thread cannot change its time zone: parse in a process of its own, in New York.
    ensureBuilt();
    const module = pathToFileURL(join(CLI, '..', '..', 'analyze', 'parse-line.js')).href;
    const script = `import { parseLogLine } from ${JSON.stringify(module)};
      const at = (line) => parseLogLine(line).request?.at;
      console.log(JSON.stringify([
        new Date(2026, 0, 31, 4).getTime() - Date.UTC(2026, 0, 31, 4),
        at('2026-01-31T04:00:01.250 https://a.example/ 5'),
        at('{"url":"https://a.example/","time":"2026-01-31 04:00:01.250"}'),
        at('2026-01-31T05:00:01.250+01:00 https://a.example/ 5'),
      ]));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, TZ: 'America/New_York' },
      encoding: 'utf8',
    });
    const utc = Date.parse('2026-01-31T04:00:01.250Z');
    const [shift, ...times] = JSON.parse(out) as number[];
    expect(shift).toBe(5 * 3_600_000); // the process did run in New York
    expect(times).toEqual([utc, utc, utc]); // the last one by its explicit zone
  });

  it('rejects times a Date cannot hold', () => {
    expect(parseLogLine('{"t":9e15,"type":"limit"}')).toMatchObject({ kind: 'malformed' });
    expect(parseLogLine('{"t":1,"wall":-9e15,"type":"limit"}')).toMatchObject({
      kind: 'event',
      event: { wall: Number.NaN },
    });
    expect(parseLogLine('{"url":"https://a.example/","at":1e300}')).toEqual({
      kind: 'result',
      request: { failed: false, host: 'a.example' },
    });
  });

  it('calls blank lines blank and everything else malformed, with a reason', () => {
    expect(parseLogLine('   ')).toEqual({ kind: 'blank' });
    expect(parseLogLine('# comment')).toEqual({ kind: 'blank' });
    const cases: [string, RegExp][] = [
      ['{"t":', /invalid JSON/],
      ['[1,2]', /expected/],
      ['{"t":1,"type":"teleport"}', /unknown event type/],
      ['{"t":"soon","type":"sample"}', /finite time/],
      ['{"hello":1}', /neither/],
      ['2026-01-31T04:00:00Z https://a.example', /expected/],
      ['yesterday https://a.example 12', /ISO 8601/],
      ['2026-13-45T99:00:00Z https://a.example 12', /ISO 8601/],
      ['2026-01-31T04:00:00Z https://a.example -3', /latency/],
      ['2026-01-31T04:00:00Z https://a.example 1e999', /latency/],
      ['x'.repeat(MAX_LINE_LENGTH + 1), /longer than/],
    ];
    for (const [line, reason] of cases) {
      const parsed = parseLogLine(line);
      expect(parsed.kind, line.slice(0, 50)).toBe('malformed');
      if (parsed.kind === 'malformed') expect(parsed.reason).toMatch(reason);
    }
  });

  it('never throws, and whatever it accepts has finite times and latencies', () => {
    const jsonish = fc.oneof(
      fc.string(),
      fc.json(),
      fc
        .record({
          t: fc.anything(),
          type: fc.constantFrom('sample', 'limit', 'x'),
          rttMs: fc.anything(),
          timings: fc.anything(),
        })
        .map((o) => JSON.stringify(o)),
      fc
        .record({
          url: fc.string(),
          status: fc.anything(),
          wall: fc.anything(),
          timings: fc.anything(),
        })
        .map((o) => JSON.stringify(o)),
      fc
        .tuple(fc.date({ noInvalidDate: true }), fc.string(), fc.string())
        .map(([d, u, l]) => `${d.toISOString()} ${u} ${l}`),
    );
    fc.assert(
      fc.property(jsonish, (line) => {
        const parsed = parseLogLine(line);
        const request =
          parsed.kind === 'event'
            ? requestOfSample(parsed.event)
            : 'request' in parsed
              ? parsed.request
              : undefined;
        if (!request) return;
        if (request.at !== undefined) expect(Number.isFinite(request.at)).toBe(true);
        if (request.latencyMs !== undefined) expect(request.latencyMs).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 500 },
    );
  });
});
