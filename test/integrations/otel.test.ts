import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import parse from 'parse-prometheus-text-format';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/client.js';
import { otelMetrics } from '../../src/integrations/otel.js';
import { prometheusMetrics } from '../../src/integrations/prometheus.js';
import { fastClock, type TestServer } from '../client/helpers.js';
import { startScriptedServer } from './scripted-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

async function traffic(client: ReturnType<typeof createClient>, tag: string): Promise<void> {
  // Four at once: the concurrency limit is used, so slow start raises it (a limit change).
  const oks = [0, 1, 2, 3].map(async (i) =>
    (await client.fetch(`${server.url}/ok/${tag}/${i}`)).text(),
  );
  await Promise.all(oks);
  await (await client.fetch(`${server.url}/429/seconds/${tag}`)).text();
}

describe('ratewise/otel', () => {
  it("reports through the SDK's in-memory exporter: counters, gauges and histograms", async () => {
    const client = createClient({ clock: fastClock(50) });
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    const provider = new MeterProvider({ readers: [reader] });
    const metrics = otelMetrics({
      registry: client.registry,
      meter: provider.getMeter('ratewise'),
    });
    await traffic(client, 'otel');
    await reader.forceFlush();
    const scope = `host:${new URL(server.url).host}`;
    const all = exporter.getMetrics().flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics));
    const byName = new Map(all.map((m) => [m.descriptor.name, m]));
    const point = (name: string, attributes: Record<string, string>) =>
      byName
        .get(name)
        ?.dataPoints.find((p) =>
          Object.entries(attributes).every(([k, v]) => p.attributes[k] === v),
        )?.value;
    expect(point('ratewise_requests_total', { scope, outcome: 'ok' })).toBe(5);
    expect(point('ratewise_requests_total', { scope, outcome: 'throttled' })).toBe(1);
    expect(point('ratewise_concurrency_limit', { scope })).toBe(client.registry.get(scope)?.limit);
    expect(point('ratewise_scopes', {})).toBe(1);
    const duration = point('ratewise_request_duration_seconds', { scope }) as { count: number };
    expect(duration.count).toBe(6);
    const wait = point('ratewise_admission_wait_seconds', { scope }) as { count: number };
    expect(wait.count).toBe(6);
    metrics.close();
    await provider.shutdown();
    await client.close();
  });

  it('renders under the same names as ratewise/prometheus through the OTel Prometheus exporter', async () => {
    const client = createClient({ clock: fastClock(50) });
    const exporter = new PrometheusExporter({ preventServerStart: true });
    const provider = new MeterProvider({ readers: [exporter] });
    const otel = otelMetrics({ registry: client.registry, meter: provider.getMeter('ratewise') });
    const register = new Registry();
    const prom = prometheusMetrics({ registry: client.registry, register });
    await traffic(client, 'both');
    const { resourceMetrics } = await exporter.collect();
    const otelText = new PrometheusSerializer().serialize(resourceMetrics);
    const names = (text: string) =>
      parse(text)
        .map((family) => family.name)
        .filter((name) => name.startsWith('ratewise_'))
        .sort();
    expect(names(otelText)).toEqual(names(await register.metrics()));
    expect(names(otelText)).toHaveLength(10);
    otel.close();
    prom.close();
    await provider.shutdown();
    await client.close();
  });
});
