import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ScopeRegistry } from '../controller/registry.js';
import {
  type AdmissionMessage,
  admissionChannel,
  CHANNEL_NAMES,
  type LimitMessage,
  type ReleaseMessage,
} from '../events/diagnostics.js';
import { func, hasMethods, number, required } from '../option-rules.js';
import type { OptionSpec, SettingsOf } from '../option-spec.js';
import type { SignalKind } from '../signal.js';
import { Histogram } from './histogram.js';

/** Options shared by the Prometheus and OpenTelemetry exporters. */
export interface MetricsOptions {
  /** The controllers to report: `client.registry` (or an integration's `registry`). */
  registry: ScopeRegistry;
  /**
   * Maps a scope key to its `scope` label, e.g. to drop a session id or group
   * hosts by domain; scopes with one label are summed.
   * @default the scope key
   */
  scopeLabel?: (scope: string) => string;
  /**
   * Distinct `scope` labels kept; scopes seen once they are taken are
   * reported as `other`. An evicted scope's series are removed and its label
   * freed. Keeps the series count bounded whatever the crawl.
   * @default 50
   */
  maxScopes?: number;
}

/** The rules of {@link MetricsOptions}, for the readers of both exporters. */
export const METRICS_RULES = {
  registry: required<ScopeRegistry>(
    'a ScopeRegistry (client.registry)',
    hasMethods<ScopeRegistry>('controllers'),
  ),
  scopeLabel: func<(scope: string) => string>((scope) => scope),
  maxScopes: number(50, { min: 1, integer: true }),
} satisfies OptionSpec<MetricsOptions>;

/** {@link MetricsOptions} checked, defaults applied. */
export type MetricsSettings = SettingsOf<typeof METRICS_RULES>;

/** One label's numbers at a scrape (summed over its scopes). */
export interface LabelGauges {
  inflight: number;
  queued: number;
  /** Concurrency limit. */
  limit: number;
  /** Pacing rate, requests/s; `Infinity` while unpaced. */
  rate: number;
  /** Time left of a pause the server asked for, s (the longest of its scopes). */
  pausedSeconds: number;
}

/**
 * Every outcome a request can end with, counted from zero: a dashboard's `rate()` ignores a
 * series' first value, so an outcome first exported at 1 (a scope's first 429) would never
 * show (the compiler keeps the list complete).
 */
const NO_OUTCOMES: Readonly<Record<SignalKind | 'released', 0>> = {
  ok: 0,
  throttled: 0,
  overloaded: 0,
  blocked: 0,
  reset: 0,
  refused: 0,
  timeout: 0,
  'client-error': 0,
  'server-error': 0,
  released: 0,
};

/** What one label has counted since it was first seen. */
export class LabelStats {
  /** Attempts by outcome: a signal kind, or `released` (ended without one); each from 0. */
  readonly requests = new Map<string, number>(Object.entries(NO_OUTCOMES));
  /** Concurrency-limit moves by `direction|reason` (`down|throttled`). */
  readonly limitChanges = new Map<string, number>();
  /** Admission to outcome, s. */
  readonly duration = new Histogram();
  /** Wait for admission, s. */
  readonly wait = new Histogram();
}

/** The per-scope gauges every exporter reports: name, help text, field, unit. */
export const SCOPE_GAUGES: readonly (readonly [string, string, keyof LabelGauges, string?])[] = [
  ['ratewise_inflight_requests', 'Requests admitted and not yet finished.', 'inflight'],
  ['ratewise_queued_requests', 'Requests waiting for admission.', 'queued'],
  ['ratewise_concurrency_limit', 'Concurrency limit (requests in flight allowed).', 'limit'],
  ['ratewise_rate_limit', 'Pacing rate, requests per second (absent while unpaced).', 'rate'],
  [
    'ratewise_paused_seconds',
    'Time left of a pause the server asked for, seconds.',
    'pausedSeconds',
    's',
  ],
];

/** Called with each observation, for an exporter that records histograms itself. */
export interface FeedObserver {
  /** A request's admission-to-outcome time, s. */
  duration(label: string, seconds: number): void;
  /** A wait for admission, s. */
  wait(label: string, seconds: number): void;
}

/** The label of scopes past `maxScopes`. */
export const OTHER = 'other';

/**
 * What both exporters read: counters and histograms fed by ratewise's
 * diagnostics channels (only this registry's messages), gauges read from the
 * controllers at scrape time, and the bounded mapping from scope to label.
 */
export class MetricsFeed {
  /** Counters and histograms by label. */
  readonly stats = new Map<string, LabelStats>();
  readonly #registry: ScopeRegistry;
  readonly #label: (scope: string) => string;
  readonly #maxScopes: number;
  /** Scope → its label, for the scopes seen since their label was last forgotten. */
  readonly #labelOf = new Map<string, string>();
  readonly #observer: FeedObserver | undefined;
  readonly #onRelease = (message: unknown) => this.#release(message as ReleaseMessage);
  readonly #onLimit = (message: unknown) => this.#limit(message as LimitMessage);
  readonly #admission = { asyncEnd: (message: AdmissionMessage) => this.#admitted(message) };

  constructor(settings: MetricsSettings, observer?: FeedObserver) {
    this.#observer = observer;
    this.#registry = settings.registry;
    this.#label = settings.scopeLabel;
    this.#maxScopes = settings.maxScopes;
    subscribe(CHANNEL_NAMES.release, this.#onRelease);
    subscribe(CHANNEL_NAMES.limit, this.#onLimit);
    admissionChannel.subscribe(this.#admission as never);
  }

  /** The label `scope` reports under. */
  labelOf(scope: string): string {
    const known = this.#labelOf.get(scope);
    if (known !== undefined) return known;
    let label = this.#label(scope);
    if (!this.stats.has(label)) {
      if (this.stats.size >= this.#maxScopes) label = OTHER;
      if (!this.stats.has(label)) this.stats.set(label, new LabelStats());
    }
    this.#labelOf.set(scope, label);
    return label;
  }

  /** Reads every live controller, summed by label; labels with no live scope are forgotten first. */
  read(): Map<string, LabelGauges> {
    this.#forgetEvicted();
    const gauges = new Map<string, LabelGauges>();
    for (const controller of this.#registry.controllers()) {
      const label = this.labelOf(controller.scope);
      const sum = gauges.get(label) ?? {
        inflight: 0,
        queued: 0,
        limit: 0,
        rate: 0,
        pausedSeconds: 0,
      };
      sum.inflight += controller.inflight;
      sum.queued += controller.queued;
      sum.limit += controller.limit;
      sum.rate += controller.rate;
      sum.pausedSeconds = Math.max(sum.pausedSeconds, controller.pauseLeftMs / 1000);
      gauges.set(label, sum);
    }
    return gauges;
  }

  /** Live scopes. */
  get scopes(): number {
    return this.#registry.size;
  }

  /** Stops listening. */
  close(): void {
    unsubscribe(CHANNEL_NAMES.release, this.#onRelease);
    unsubscribe(CHANNEL_NAMES.limit, this.#onLimit);
    admissionChannel.unsubscribe(this.#admission as never);
  }

  #forgetEvicted(): void {
    const live = new Set<string>();
    for (const [scope, label] of this.#labelOf) {
      if (this.#registry.get(scope) === undefined) this.#labelOf.delete(scope);
      else live.add(label);
    }
    for (const label of this.stats.keys()) if (!live.has(label)) this.stats.delete(label);
  }

  #ours(message: { scope: string; controller: object }): boolean {
    return this.#registry.get(message.scope) === message.controller;
  }

  #release(message: ReleaseMessage): void {
    if (!this.#ours(message)) return;
    const stats = this.#statsOf(message.scope);
    bump(stats.requests, message.signal ?? 'released');
    if (message.signal === undefined) return;
    stats.duration.observe(message.rttMs / 1000);
    this.#observer?.duration(this.labelOf(message.scope), message.rttMs / 1000);
  }

  #limit(message: LimitMessage): void {
    if (message.kind !== 'concurrency' || !this.#ours(message)) return;
    const direction = message.to > message.from ? 'up' : 'down';
    bump(this.#statsOf(message.scope).limitChanges, `${direction}|${message.reason}`);
  }

  #admitted(message: AdmissionMessage): void {
    if (message.registry !== this.#registry || message.result === undefined) return;
    const seconds = Math.max(0, message.result.sentAt - message.startedAt) / 1000;
    const scopes = typeof message.scopes === 'string' ? [message.scopes] : message.scopes;
    for (const scope of scopes) {
      this.#statsOf(scope).wait.observe(seconds);
      this.#observer?.wait(this.labelOf(scope), seconds);
    }
  }

  #statsOf(scope: string): LabelStats {
    return this.stats.get(this.labelOf(scope)) as LabelStats;
  }
}

function bump(table: Map<string, number>, key: string): void {
  table.set(key, (table.get(key) ?? 0) + 1);
}
