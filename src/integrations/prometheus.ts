/**
 * ratewise's controllers as Prometheus metrics, through prom-client.
 *
 * @packageDocumentation
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { InvalidOptionError } from '../errors.js';
import { type LabelGauges, MetricsFeed, type MetricsOptions } from './metrics-feed.js';

export type { MetricsOptions } from './metrics-feed.js';

/** Options of {@link prometheusMetrics}. */
export interface PrometheusOptions extends MetricsOptions {
  /** The prom-client registry to register on (`new Registry()`, or prom-client's `register`). */
  register: Registry;
}

/** The registered metrics; `close()` unregisters them and stops listening. */
export interface PrometheusMetrics {
  close(): void;
}

/** Seconds: 1 ms to 2 min, for round trips and admission waits alike. */
const BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

type GaugeName = keyof LabelGauges;

const GAUGES: readonly [string, string, GaugeName][] = [
  ['ratewise_inflight_requests', 'Requests admitted and not yet finished.', 'inflight'],
  ['ratewise_queued_requests', 'Requests waiting for admission.', 'queued'],
  ['ratewise_concurrency_limit', 'Concurrency limit (requests in flight allowed).', 'limit'],
  ['ratewise_rate_limit', 'Pacing rate, requests per second (absent while unpaced).', 'rate'],
  [
    'ratewise_paused_seconds',
    'Time left of a pause the server asked for, seconds.',
    'pausedSeconds',
  ],
];

/**
 * Registers ratewise's metrics on `register`. Gauges are read from the
 * controllers at scrape time; counters and histograms are fed by ratewise's
 * `diagnostics_channel`s (this registry's traffic only):
 * `ratewise_requests_total{scope,outcome}`, `ratewise_request_duration_seconds`,
 * `ratewise_admission_wait_seconds`, `ratewise_inflight_requests`,
 * `ratewise_queued_requests`, `ratewise_concurrency_limit`,
 * `ratewise_rate_limit`, `ratewise_paused_seconds`,
 * `ratewise_limit_changes_total{scope,direction,reason}` and `ratewise_scopes`.
 *
 * ```ts
 * const register = new Registry();
 * prometheusMetrics({ registry: client.registry, register });
 * // serve `await register.metrics()` as text/plain at /metrics
 * ```
 */
export function prometheusMetrics(options: PrometheusOptions): PrometheusMetrics {
  const owner = 'prometheusMetrics';
  const register = options?.register;
  if (typeof register?.registerMetric !== 'function') {
    throw InvalidOptionError.invalid(owner, 'register', register, 'a prom-client Registry');
  }
  const registers = [register];
  // Registration order is scrape order: the gauges read the controllers (and forget evicted
  // scopes) before the counters and histograms are written out.
  const feed = new MetricsFeed(owner, options, {
    request: (scope, seconds) => duration.observe({ scope }, seconds),
    admission: (scope, seconds) => wait.observe({ scope }, seconds),
    forget: (scope) => {
      duration.remove({ scope });
      wait.remove({ scope });
    },
  });
  const gauges = GAUGES.map(
    ([name, help]) => new Gauge({ name, help, labelNames: ['scope'], registers }),
  );
  (gauges[0] as Gauge & { collect?: () => void }).collect = () => {
    for (const gauge of gauges) gauge.reset();
    for (const [scope, numbers] of feed.read()) {
      GAUGES.forEach(([, , field], i) => {
        const value = numbers[field];
        if (Number.isFinite(value)) gauges[i]?.set({ scope }, value);
      });
    }
  };
  const scopes = new Gauge({
    name: 'ratewise_scopes',
    help: 'Live rate-limit scopes.',
    registers,
    collect() {
      scopes.set(feed.scopes);
    },
  });
  const requests = new Counter({
    name: 'ratewise_requests_total',
    help: 'Request attempts by outcome (signal kind, or released: ended without one).',
    labelNames: ['scope', 'outcome'],
    registers,
    collect() {
      requests.reset();
      for (const [scope, row] of feed.requests)
        for (const [outcome, n] of row) requests.inc({ scope, outcome }, n);
    },
  });
  const changes = new Counter({
    name: 'ratewise_limit_changes_total',
    help: 'Concurrency-limit changes by direction and the signal that caused them.',
    labelNames: ['scope', 'direction', 'reason'],
    registers,
    collect() {
      changes.reset();
      for (const [scope, row] of feed.limitChanges) {
        for (const [key, n] of row) {
          const [direction, reason] = key.split('|') as [string, string];
          changes.inc({ scope, direction, reason }, n);
        }
      }
    },
  });
  const duration = new Histogram({
    name: 'ratewise_request_duration_seconds',
    help: 'Admission to outcome of each request attempt, seconds.',
    labelNames: ['scope'],
    buckets: BUCKETS,
    registers,
  });
  const wait = new Histogram({
    name: 'ratewise_admission_wait_seconds',
    help: 'Time each attempt waited for admission, seconds.',
    labelNames: ['scope'],
    buckets: BUCKETS,
    registers,
  });
  const names = [
    'ratewise_request_duration_seconds',
    'ratewise_admission_wait_seconds',
    'ratewise_requests_total',
    'ratewise_limit_changes_total',
    'ratewise_scopes',
    ...GAUGES.map(([name]) => name),
  ];
  return {
    close() {
      feed.close();
      for (const name of names) register.removeSingleMetric(name);
    },
  };
}
