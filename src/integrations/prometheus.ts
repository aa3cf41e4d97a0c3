/**
 * ratewise's controllers as Prometheus metrics, on a prom-client registry.
 *
 * @packageDocumentation
 */

import { hasMethods, required } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import type { Histogram } from './histogram.js';
import {
  type LabelGauges,
  type LabelStats,
  METRICS_RULES,
  MetricsFeed,
  type MetricsOptions,
  SCOPE_GAUGES,
} from './metrics-feed.js';

export type { MetricsOptions } from './metrics-feed.js';

/** The part of a prom-client `Registry` the collector uses. */
export interface PromRegistry {
  registerMetric(metric: unknown): void;
  removeSingleMetric(name: string): void;
}

/** Options of {@link prometheusMetrics}. */
export interface PrometheusOptions extends MetricsOptions {
  /** The prom-client registry to register on (`new Registry()`, or prom-client's `register`). */
  register: PromRegistry;
}

/** The registered metrics; `close()` unregisters them and stops listening. */
export interface PrometheusMetrics {
  close(): void;
}

const readOptions = defineOptions<PrometheusOptions>()('prometheusMetrics', {
  ...METRICS_RULES,
  register: required<PromRegistry>(
    'a prom-client Registry',
    hasMethods<PromRegistry>('registerMetric', 'removeSingleMetric'),
  ),
});

/** One sample as prom-client renders it. */
interface Sample {
  labels: Record<string, string>;
  value: number;
  metricName?: string;
}

type Kind = 'counter' | 'gauge' | 'histogram';

/**
 * Registers ratewise's metrics on a prom-client `register`. Gauges are read
 * from the controllers at scrape time; counters and histograms are counted
 * from ratewise's `diagnostics_channel`s (this registry's traffic only) at the
 * cost of a few map updates per request:
 * `ratewise_requests_total{scope,outcome}`, `ratewise_request_duration_seconds`,
 * `ratewise_admission_wait_seconds`, `ratewise_inflight_requests`,
 * `ratewise_queued_requests`, `ratewise_concurrency_limit`,
 * `ratewise_rate_limit`, `ratewise_paused_seconds`,
 * `ratewise_limit_changes_total{scope,direction,reason}` and `ratewise_scopes`.
 *
 * ```ts
 * const register = new Registry();
 * prometheusMetrics({ registry: client.registry, register });
 * // serve `await register.metrics()` with `register.contentType` at /metrics
 * ```
 */
export function prometheusMetrics(options: PrometheusOptions): PrometheusMetrics {
  const { register, ...settings } = readOptions(options);
  const feed = new MetricsFeed(settings);
  // One read of the controllers per scrape: gauges come first in the scrape and take it.
  let gauges = new Map<string, LabelGauges>();
  const metrics: [string, string, Kind, () => Sample[]][] = SCOPE_GAUGES.map(
    ([name, help, field], i) => [
      name,
      help,
      'gauge',
      () => {
        if (i === 0) gauges = feed.read();
        return [...gauges].flatMap(([scope, numbers]) =>
          Number.isFinite(numbers[field]) ? [{ labels: { scope }, value: numbers[field] }] : [],
        );
      },
    ],
  );
  metrics.push(
    [
      'ratewise_scopes',
      'Live rate-limit scopes.',
      'gauge',
      () => [{ labels: {}, value: feed.scopes }],
    ],
    [
      'ratewise_requests_total',
      'Request attempts by outcome (signal kind, or released: ended without one).',
      'counter',
      () =>
        byLabel(feed, (scope, stats) => tally(stats.requests, (outcome) => ({ scope, outcome }))),
    ],
    [
      'ratewise_limit_changes_total',
      'Concurrency-limit changes by direction and the signal that caused them.',
      'counter',
      () =>
        byLabel(feed, (scope, stats) =>
          tally(stats.limitChanges, (key) => {
            const [direction = '', reason = ''] = key.split('|');
            return { scope, direction, reason };
          }),
        ),
    ],
    histogram(
      feed,
      'ratewise_request_duration_seconds',
      'Admission to outcome of each request attempt, seconds.',
      (stats) => stats.duration,
    ),
    histogram(
      feed,
      'ratewise_admission_wait_seconds',
      'Time each attempt waited for admission, seconds.',
      (stats) => stats.wait,
    ),
  );
  for (const [name, help, type, values] of metrics) {
    register.registerMetric({
      name,
      help,
      get: () => ({ name, help, type, values: values(), aggregator: 'sum' }),
    });
  }
  return {
    close() {
      feed.close();
      for (const [name] of metrics) register.removeSingleMetric(name);
    },
  };
}

/** A histogram metric of every label's `of(stats)`. */
function histogram(
  feed: MetricsFeed,
  name: string,
  help: string,
  of: (stats: LabelStats) => Histogram,
): [string, string, Kind, () => Sample[]] {
  return [
    name,
    help,
    'histogram',
    () => byLabel(feed, (scope, stats) => buckets(name, scope, of(stats))),
  ];
}

function byLabel(
  feed: MetricsFeed,
  samples: (scope: string, stats: LabelStats) => Sample[],
): Sample[] {
  return [...feed.stats].flatMap(([scope, stats]) => samples(scope, stats));
}

function tally(
  table: Map<string, number>,
  labels: (key: string) => Record<string, string>,
): Sample[] {
  return [...table].map(([key, value]) => ({ labels: labels(key), value }));
}

function buckets(name: string, scope: string, histogram: Histogram): Sample[] {
  if (histogram.count === 0) return [];
  const cumulative = histogram.cumulative();
  const samples: Sample[] = cumulative.map((value, i) => ({
    metricName: `${name}_bucket`,
    labels: { scope, le: i < histogram.bounds.length ? String(histogram.bounds[i]) : '+Inf' },
    value,
  }));
  samples.push({ metricName: `${name}_sum`, labels: { scope }, value: histogram.sum });
  samples.push({ metricName: `${name}_count`, labels: { scope }, value: histogram.count });
  return samples;
}
