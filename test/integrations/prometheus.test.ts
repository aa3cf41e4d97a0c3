import parse, { type ParsedFamily } from 'parse-prometheus-text-format';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/client.js';
import { controlSetup } from '../../src/controller/defaults.js';
import { ScopeRegistry } from '../../src/controller/registry.js';
import { byContext } from '../../src/controller/resolvers.js';
import { otelMetrics } from '../../src/integrations/otel.js';
import { prometheusMetrics } from '../../src/integrations/prometheus.js';
import { VirtualClock } from '../../src/virtual-clock.js';
import { fastClock, type TestServer } from '../client/helpers.js';
import { startScriptedServer } from './scripted-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

/** The scrape, parsed (which throws on any malformed line), by family name; `text` is the raw scrape. */
async function scrape(register: Registry): Promise<Map<string, ParsedFamily> & { text: string }> {
  const text = await register.metrics();
  const families = parse(text);
  return Object.assign(new Map(families.map((family) => [family.name, family])), { text });
}

/** A histogram's `_count` for one scope, read off the text (the parser flattens labelled histograms). */
function histogramCount(text: string, name: string, scope: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}_count{scope="${scope}"}`));
  return Number(line?.split(' ')[1]);
}

function value(family: ParsedFamily | undefined, labels: Record<string, string>): number {
  const metric = family?.metrics.find((m) =>
    Object.entries(labels).every(([k, v]) => m.labels?.[k] === v),
  );
  return Number(metric?.value ?? Number.NaN);
}

describe('ratewise/prometheus', () => {
  it('a scrape after real traffic parses, with counts that match what was sent', async () => {
    const client = createClient({ clock: fastClock(50) });
    const register = new Registry();
    const metrics = prometheusMetrics({ registry: client.registry, register });
    for (let i = 0; i < 5; i++) await (await client.fetch(`${server.url}/ok/${i}`)).text();
    await (await client.fetch(`${server.url}/429/seconds/prom`)).text();
    const scope = `host:${new URL(server.url).host}`;
    const families = await scrape(register);
    const requests = families.get('ratewise_requests_total');
    expect(requests?.type).toBe('COUNTER');
    expect(value(requests, { scope, outcome: 'ok' })).toBe(6);
    expect(value(requests, { scope, outcome: 'throttled' })).toBe(1);
    const duration = families.get('ratewise_request_duration_seconds');
    expect(duration?.type).toBe('HISTOGRAM');
    expect(histogramCount(families.text, 'ratewise_request_duration_seconds', scope)).toBe(7);
    expect(families.get('ratewise_admission_wait_seconds')?.type).toBe('HISTOGRAM');
    expect(histogramCount(families.text, 'ratewise_admission_wait_seconds', scope)).toBe(7);
    expect(value(families.get('ratewise_concurrency_limit'), { scope })).toBe(
      client.registry.get(scope)?.limit,
    );
    expect(value(families.get('ratewise_inflight_requests'), { scope })).toBe(0);
    expect(value(families.get('ratewise_scopes'), {})).toBe(1);
    // The 429 came at one in flight, a concurrency the server had taken: the rate's to learn,
    // so the pace went down and the concurrency limit did not move.
    expect(value(families.get('ratewise_rate_limit'), { scope })).toBeLessThan(Infinity);
    const down = value(families.get('ratewise_limit_changes_total'), {
      scope,
      direction: 'down',
      reason: 'throttled',
    });
    expect(down).toBeNaN();
    metrics.close();
    expect((await register.metrics()).trim()).toBe('');
    await client.close();
  });

  it('bounds the scope label: maxScopes, then other; scopeLabel maps keys', async () => {
    const client = createClient({ scope: byContext('session') });
    const register = new Registry();
    const metrics = prometheusMetrics({
      registry: client.registry,
      register,
      maxScopes: 2,
      scopeLabel: (scope) => scope.replace(/^session:/, 's-'),
    });
    for (const session of ['a', 'b', 'c', 'd']) {
      const response = await client.fetch(`${server.url}/ok/${session}`, {
        ratewise: { context: { session } },
      });
      await response.text();
    }
    const requests = (await scrape(register)).get('ratewise_requests_total');
    const labels = new Set(requests?.metrics.map((m) => m.labels?.scope));
    expect([...labels].sort()).toEqual(['other', 's-a', 's-b']);
    expect(value(requests, { scope: 'other', outcome: 'ok' })).toBe(2);
    metrics.close();
    await client.close();
  });

  it("removes an evicted scope's series", async () => {
    const clock = new VirtualClock();
    const registry = new ScopeRegistry({ setup: controlSetup(), clock, idleMs: 1000 });
    const register = new Registry();
    const metrics = prometheusMetrics({ registry, register });
    const permit = await registry.admit('host:gone.example');
    permit.report({ kind: 'ok', reason: '200', status: 200 });
    let families = await scrape(register);
    expect(value(families.get('ratewise_requests_total'), { scope: 'host:gone.example' })).toBe(1);
    await clock.advance(2000);
    expect(await registry.sweep()).toBe(1);
    families = await scrape(register);
    expect(families.get('ratewise_requests_total')?.metrics ?? []).toEqual([]);
    expect(families.text).not.toContain('gone.example');
    expect(value(families.get('ratewise_scopes'), {})).toBe(0);
    metrics.close();
    await registry.close();
  });

  it("counts only its own registry's traffic", async () => {
    const mine = createClient();
    const other = createClient();
    const register = new Registry();
    const metrics = prometheusMetrics({ registry: mine.registry, register });
    await (await other.fetch(`${server.url}/ok/other`)).text();
    expect((await scrape(register)).get('ratewise_requests_total')?.metrics ?? []).toEqual([]);
    metrics.close();
    await Promise.all([mine.close(), other.close()]);
  });

  it('rejects a missing register with the option named', () => {
    const registry = new ScopeRegistry({ setup: controlSetup() });
    expect(() => prometheusMetrics({ registry } as never)).toThrow(/register/);
  });

  it('checks every option of both exporters, naming the exporter', () => {
    const registry = new ScopeRegistry({ setup: controlSetup() });
    const register = new Registry();
    expect(() => prometheusMetrics({ registry, register, maxScopes: 0 })).toThrow(
      /prometheusMetrics: option `maxScopes` must be an integer >= 1, got 0/,
    );
    expect(() => prometheusMetrics({ registry, register, scopeLable: String } as never)).toThrow(
      /prometheusMetrics: unknown option `scopeLable`/,
    );
    expect(() => prometheusMetrics({ registry: {}, register } as never)).toThrow(
      /option `registry` must be a ScopeRegistry/,
    );
    expect(() => otelMetrics({ registry, meter: {} } as never)).toThrow(
      /otelMetrics: option `meter` must be an OpenTelemetry Meter/,
    );
  });
});
