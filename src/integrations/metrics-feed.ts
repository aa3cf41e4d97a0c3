import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ScopeRegistry } from '../controller/registry.js';
import { InvalidOptionError } from '../errors.js';
import {
  type AdmissionMessage,
  admissionChannel,
  CHANNEL_NAMES,
  type LimitMessage,
  type ReleaseMessage,
} from '../events/diagnostics.js';
import { numberOption } from '../options.js';

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

/** Histogram observations, for the exporter to record. */
export interface FeedObserver {
  /** A request's admission-to-outcome time, s. */
  request(label: string, seconds: number): void;
  /** A wait for admission, s. */
  admission(label: string, seconds: number): void;
  /** `label` has no live scope any more: drop its series. */
  forget(label: string): void;
}

/** The label of scopes past `maxScopes`. */
export const OTHER = 'other';

/**
 * What both exporters read: counters and histograms fed by ratewise's
 * diagnostics channels (only this registry's messages), gauges read from the
 * controllers at scrape time, and the bounded mapping from scope to label.
 */
export class MetricsFeed {
  /** `requests[label][outcome]`: outcomes are signal kinds, or `released` (no outcome). */
  readonly requests = new Map<string, Map<string, number>>();
  /** `limitChanges[label]['up|throttled']`: concurrency-limit moves by direction and cause. */
  readonly limitChanges = new Map<string, Map<string, number>>();
  readonly #registry: ScopeRegistry;
  readonly #label: (scope: string) => string;
  readonly #maxScopes: number;
  readonly #observer: FeedObserver;
  /** Label → the scopes that have used it. */
  readonly #labels = new Map<string, Set<string>>();
  readonly #onRelease = (message: unknown) => this.#release(message as ReleaseMessage);
  readonly #onLimit = (message: unknown) => this.#limit(message as LimitMessage);
  readonly #admission = { asyncEnd: (message: AdmissionMessage) => this.#admitted(message) };

  constructor(owner: string, options: MetricsOptions, observer: FeedObserver) {
    if (typeof options?.registry?.controllers !== 'function') {
      throw InvalidOptionError.invalid(
        owner,
        'registry',
        options?.registry,
        'a ScopeRegistry (client.registry)',
      );
    }
    if (options.scopeLabel !== undefined && typeof options.scopeLabel !== 'function') {
      throw InvalidOptionError.invalid(owner, 'scopeLabel', options.scopeLabel, 'a function');
    }
    this.#registry = options.registry;
    this.#label = options.scopeLabel ?? ((scope) => scope);
    this.#maxScopes = numberOption(owner, 'maxScopes', options.maxScopes, 50, {
      min: 1,
      integer: true,
    });
    this.#observer = observer;
    subscribe(CHANNEL_NAMES.release, this.#onRelease);
    subscribe(CHANNEL_NAMES.limit, this.#onLimit);
    admissionChannel.subscribe(this.#admission as never);
  }

  /** The label `scope` reports under. */
  labelOf(scope: string): string {
    const label = this.#label(scope);
    let scopes = this.#labels.get(label);
    if (scopes === undefined) {
      if (this.#labels.size >= this.#maxScopes) return OTHER;
      scopes = new Set();
      this.#labels.set(label, scopes);
    }
    scopes.add(scope);
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
    for (const [label, scopes] of this.#labels) {
      for (const scope of scopes) if (this.#registry.get(scope) === undefined) scopes.delete(scope);
      if (scopes.size > 0) continue;
      this.#labels.delete(label);
      this.requests.delete(label);
      this.limitChanges.delete(label);
      this.#observer.forget(label);
    }
  }

  #ours(message: { scope: string; controller: object }): boolean {
    return this.#registry.get(message.scope) === message.controller;
  }

  #release(message: ReleaseMessage): void {
    if (!this.#ours(message)) return;
    const label = this.labelOf(message.scope);
    count(this.requests, label, message.signal ?? 'released');
    if (message.signal !== undefined) this.#observer.request(label, message.rttMs / 1000);
  }

  #limit(message: LimitMessage): void {
    if (message.kind !== 'concurrency' || !this.#ours(message)) return;
    const direction = message.to > message.from ? 'up' : 'down';
    count(this.limitChanges, this.labelOf(message.scope), `${direction}|${message.reason}`);
  }

  #admitted(message: AdmissionMessage): void {
    if (message.registry !== this.#registry || message.result === undefined) return;
    const seconds = Math.max(0, message.result.sentAt - message.startedAt) / 1000;
    const scopes = typeof message.scopes === 'string' ? [message.scopes] : message.scopes;
    for (const scope of scopes) this.#observer.admission(this.labelOf(scope), seconds);
  }
}

function count(table: Map<string, Map<string, number>>, label: string, key: string): void {
  let row = table.get(label);
  if (row === undefined) {
    row = new Map();
    table.set(label, row);
  }
  row.set(key, (row.get(key) ?? 0) + 1);
}
