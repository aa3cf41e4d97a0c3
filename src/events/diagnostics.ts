import { channel, tracingChannel } from 'node:diagnostics_channel';
import type { Sample } from '../algorithms/sample.js';
import type { SignalKind } from '../signal.js';

/**
 * ratewise's `diagnostics_channel`s. Each is published only while someone
 * subscribes (`hasSubscribers`), so an unobserved process pays one property
 * read per admission and per outcome. Subscribers are called synchronously
 * and must be quick; they observe, they cannot delay a request.
 *
 * | channel | message |
 * | --- | --- |
 * | `ratewise:admission` (tracing: `start`, `asyncEnd`, `error`) | {@link AdmissionMessage} |
 * | `ratewise:release` | {@link ReleaseMessage} |
 * | `ratewise:limit` | {@link LimitMessage} |
 * | `ratewise:pause` | {@link PauseMessage} |
 */
export const CHANNEL_NAMES = {
  admission: 'ratewise:admission',
  release: 'ratewise:release',
  limit: 'ratewise:limit',
  pause: 'ratewise:pause',
} as const;

/** What the admission tracing channel carries: one wait for admission by `scopes`. */
export interface AdmissionMessage {
  /** The registry admitting (to tell several clients apart). */
  registry: object;
  /** The scope keys the request needs. */
  scopes: string | readonly string[];
  /** The registry clock's reading when the wait began, ms. */
  startedAt: number;
  /** Set on `asyncEnd`: the permit, whose `sentAt` ends the wait. */
  result?: { sentAt: number };
  /** Set on `error`: why admission failed (abort, timeout, close). */
  error?: unknown;
}

/** One admitted request ended: with an outcome (`signal`), or released without one. */
export interface ReleaseMessage {
  /** The scope key. */
  scope: string;
  /** The scope's controller (to tell several clients apart). */
  controller: object;
  /** The outcome's class, or `undefined` when released without an outcome. */
  signal: SignalKind | undefined;
  /** HTTP status, when there was a response. */
  status: number | undefined;
  /** Admission to outcome, ms (clock of the controller). */
  rttMs: number;
}

/** A scope's concurrency limit or rate moved. */
export interface LimitMessage {
  scope: string;
  controller: object;
  /** Which number moved. */
  kind: 'concurrency' | 'rate';
  from: number;
  to: number;
  /** The signal that moved it. */
  reason: SignalKind;
}

/** The server paused a scope (Retry-After, a spent quota), or lengthened the pause. */
export interface PauseMessage {
  scope: string;
  controller: object;
  /** How long from now, ms. */
  ms: number;
  reason: SignalKind;
}

/** The admission tracing channel. */
export const admissionChannel = tracingChannel<AdmissionMessage>(CHANNEL_NAMES.admission);
const releaseChannel = channel(CHANNEL_NAMES.release);
const limitChannel = channel(CHANNEL_NAMES.limit);
const pauseChannel = channel(CHANNEL_NAMES.pause);

/** A scope's numbers before or after an outcome (as the controller has them). */
interface Numbers {
  limit: number;
  rate: number;
  pausedUntil: number;
}

/** Whether anyone listens to outcomes, so the controller knows to take its numbers. */
export function outcomesObserved(): boolean {
  return (
    releaseChannel.hasSubscribers || limitChannel.hasSubscribers || pauseChannel.hasSubscribers
  );
}

/** Publishes an outcome and the limit, rate and pause changes it caused. */
export function publishOutcome(
  controller: { scope: string },
  sample: Sample,
  before: Numbers,
  after: Numbers,
): void {
  const { scope } = controller;
  const reason = sample.signal.kind;
  if (releaseChannel.hasSubscribers) {
    const message: ReleaseMessage = {
      scope,
      controller,
      signal: reason,
      status: sample.signal.status,
      rttMs: sample.at - sample.sentAt,
    };
    releaseChannel.publish(message);
  }
  if (limitChannel.hasSubscribers) {
    if (before.limit !== after.limit)
      publishLimit(controller, 'concurrency', before.limit, after.limit, reason);
    if (before.rate !== after.rate)
      publishLimit(controller, 'rate', before.rate, after.rate, reason);
  }
  if (pauseChannel.hasSubscribers && after.pausedUntil > Math.max(before.pausedUntil, sample.at)) {
    const message: PauseMessage = { scope, controller, ms: after.pausedUntil - sample.at, reason };
    pauseChannel.publish(message);
  }
}

function publishLimit(
  controller: { scope: string },
  kind: LimitMessage['kind'],
  from: number,
  to: number,
  reason: SignalKind,
): void {
  const message: LimitMessage = { scope: controller.scope, controller, kind, from, to, reason };
  limitChannel.publish(message);
}

/** Publishes a permit released without an outcome. */
export function publishRelease(controller: { scope: string }, sentAt: number, at: number): void {
  if (!releaseChannel.hasSubscribers) return;
  const message: ReleaseMessage = {
    scope: controller.scope,
    controller,
    signal: undefined,
    status: undefined,
    rttMs: at - sentAt,
  };
  releaseChannel.publish(message);
}

/**
 * Runs an admission under the tracing channel (call it only when
 * `admissionChannel.hasSubscribers`): `start` and `end` around the call,
 * `asyncStart` and `asyncEnd` (with `result`) or `error` when it settles.
 * Each event is published only if it has subscribers, and no async-context
 * stores are run, which keeps an observed admission to a fraction of a
 * microsecond.
 */
export function traceAdmission<T extends { sentAt: number }>(
  message: AdmissionMessage,
  admit: () => Promise<T>,
): Promise<T> {
  const { start, end, asyncStart, asyncEnd, error } = admissionChannel;
  if (start.hasSubscribers) start.publish(message);
  let admitted: Promise<T>;
  try {
    admitted = admit();
  } finally {
    if (end.hasSubscribers) end.publish(message);
  }
  return admitted.then(
    (result) => {
      message.result = result;
      if (asyncStart.hasSubscribers) asyncStart.publish(message);
      if (asyncEnd.hasSubscribers) asyncEnd.publish(message);
      return result;
    },
    (failure: unknown) => {
      message.error = failure;
      if (error.hasSubscribers) error.publish(message);
      if (asyncStart.hasSubscribers) asyncStart.publish(message);
      if (asyncEnd.hasSubscribers) asyncEnd.publish(message);
      throw failure;
    },
  );
}
