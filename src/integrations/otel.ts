/**
 * ratewise's controllers as OpenTelemetry metrics, through `@opentelemetry/api`.
 *
 * @packageDocumentation
 */
import {
  type Attributes,
  type BatchObservableResult,
  type Meter,
  metrics,
  type Observable,
} from '@opentelemetry/api';
import { check, hasMethods } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import { SECONDS_BUCKETS } from './histogram.js';
import { METRICS_RULES, MetricsFeed, type MetricsOptions, SCOPE_GAUGES } from './metrics-feed.js';

export type { MetricsOptions } from './metrics-feed.js';

/** Options of {@link otelMetrics}. */
export interface OtelOptions extends MetricsOptions {
  /** The meter to create the instruments on. @default metrics.getMeter('ratewise') */
  meter?: Meter;
}

const readOptions = defineOptions<OtelOptions>()('otelMetrics', {
  ...METRICS_RULES,
  meter: check('an OpenTelemetry Meter', hasMethods<Meter>('createHistogram')),
});

/** The instruments' callback and subscriptions; `close()` stops both. */
export interface OtelMetrics {
  close(): void;
}

/**
 * Creates ratewise's instruments on an OpenTelemetry meter: observable gauges
 * and counters read in one batch callback at collection time, and two
 * histograms recorded as requests end. Through the OTel Prometheus exporter
 * they render under the same names as `ratewise/prometheus`. The `scope`
 * attribute is bounded the same way (`scopeLabel`, `maxScopes` then `other`);
 * an evicted scope stops being observed.
 *
 * ```ts
 * const meterProvider = new MeterProvider({ readers: [new PrometheusExporter({ port: 9464 })] });
 * otelMetrics({ registry: client.registry, meter: meterProvider.getMeter('ratewise') });
 * ```
 */
export function otelMetrics(options: OtelOptions): OtelMetrics {
  const { meter = metrics.getMeter('ratewise'), ...settings } = readOptions(options);
  const advice = { explicitBucketBoundaries: [...SECONDS_BUCKETS] };
  const duration = meter.createHistogram('ratewise_request_duration_seconds', {
    description: 'Admission to outcome of each request attempt, seconds.',
    unit: 's',
    advice,
  });
  const wait = meter.createHistogram('ratewise_admission_wait_seconds', {
    description: 'Time each attempt waited for admission, seconds.',
    unit: 's',
    advice,
  });
  const feed = new MetricsFeed(settings, {
    duration: (scope, seconds) => duration.record(seconds, { scope }),
    wait: (scope, seconds) => wait.record(seconds, { scope }),
  });
  const gauges = SCOPE_GAUGES.map(([name, description, , unit]) =>
    meter.createObservableGauge(name, { description, ...(unit ? { unit } : {}) }),
  );
  const scopes = meter.createObservableGauge('ratewise_scopes', {
    description: 'Live rate-limit scopes.',
  });
  const requests = meter.createObservableCounter('ratewise_requests_total', {
    description: 'Request attempts by outcome (signal kind, or released: ended without one).',
  });
  const changes = meter.createObservableCounter('ratewise_limit_changes_total', {
    description: 'Concurrency-limit changes by direction and the signal that caused them.',
  });
  const observe = (result: BatchObservableResult) => {
    for (const [scope, numbers] of feed.read()) {
      SCOPE_GAUGES.forEach(([, , field], i) => {
        const value = numbers[field];
        if (Number.isFinite(value)) result.observe(gauges[i] as Observable, value, { scope });
      });
    }
    result.observe(scopes, feed.scopes);
    for (const [scope, stats] of feed.stats) {
      for (const [outcome, n] of stats.requests) result.observe(requests, n, { scope, outcome });
      for (const [key, n] of stats.limitChanges) {
        const [direction = '', reason = ''] = key.split('|');
        const attributes: Attributes = { scope, direction, reason };
        result.observe(changes, n, attributes);
      }
    }
  };
  const observables = [...gauges, scopes, requests, changes];
  meter.addBatchObservableCallback(observe, observables);
  return {
    close() {
      meter.removeBatchObservableCallback(observe, observables);
      feed.close();
    },
  };
}
