import { classify, classifyWith } from '../classify.js';
import type { Signal } from '../signal.js';
import type { PhaseTimings } from '../timings.js';
import {
  type AttemptOutcome,
  type AttemptSpec,
  type HeldOutcome,
  runAttempts,
} from './attempts.js';
import type { CancelSource } from './cancellation.js';
import type { ControlledSettings } from './options.js';
import { ResponseTap, type TapSettings } from './response-tap.js';
import type { TapEnd } from './tap-body.js';
import { toHeaders } from './web-response.js';

/** Statuses whose body prefix the classifier reads (block pages, rate-limit pages). */
const SNIFFED = new Set([400, 401, 403, 503]);

/** One request to run under control. */
export interface ControlledRequest {
  /** The target, for error messages. */
  url: string;
  method: string;
  /** The scopes that must admit every attempt. */
  scopes: string | readonly string[];
  /** The caller's cancellation. */
  signal?: CancelSource;
  /** Ends waiting for admission, not an attempt in flight. */
  admitSignal?: AbortSignal;
  /** Sends one attempt through undici with `tap` as its handler. */
  dispatch(tap: ResponseTap): void;
}

/**
 * Runs a request through ratewise's attempt loop over undici: every attempt
 * is admitted by its scopes, classified at its response head (with a sniffed
 * body prefix where the status needs one), retried per the policy with the
 * retried response drained, and reported to the controllers once its body is
 * finished with. Resolves with the final attempt's tap, still holding the body.
 */
export function runControlled(
  settings: ControlledSettings,
  request: ControlledRequest,
): Promise<AttemptOutcome<ResponseTap>> {
  const sniff = settings.classify.isBlocked === undefined ? sniffListed : sniffAll;
  const spec: AttemptSpec<ResponseTap> = {
    url: request.url,
    method: request.method,
    scopes: request.scopes,
    send: (signal) => {
      const tapSettings: TapSettings = {
        url: request.url,
        method: request.method,
        clock: settings.clock,
        deadlines: settings.deadlines,
        maxBodyBytes: settings.maxBodyBytes,
        timeoutMs: settings.timeoutMs,
        sniff,
      };
      if (signal) tapSettings.signal = signal;
      const tap = new ResponseTap(tapSettings);
      request.dispatch(tap);
      return tap.head;
    },
    classify: (tap) => classifyTap(settings, tap),
    timings: tapTimings,
    discard: discardTap,
    hold: holdTap,
  };
  if (request.signal) spec.signal = request.signal;
  if (request.admitSignal) spec.admitSignal = request.admitSignal;
  return runAttempts(settings, spec);
}

function sniffListed(status: number): boolean {
  return SNIFFED.has(status);
}

function sniffAll(): boolean {
  return true;
}

function classifyTap(settings: ControlledSettings, tap: ResponseTap): Signal {
  const { classify: options, clock } = settings;
  // Your isBlocked test is shown the headers as a real `Headers`; the built-in rules index undici's object.
  const headers = options.isBlocked === undefined ? tap.headers : toHeaders(tap.headers);
  return classifyWith(
    { status: tap.status, headers, body: tap.prefix },
    { ...options, now: clock.wallNow() },
  );
}

function tapTimings(tap: ResponseTap): PhaseTimings {
  return tap.timings();
}

function discardTap(tap: ResponseTap): Promise<void> {
  return tap.discard();
}

/** Reports when the body is finished with, a failure mid-download replacing the head's signal. */
function holdTap(tap: ResponseTap, report: (finished: HeldOutcome) => void): void {
  tap.onEnd((end) => {
    const failure = failureSignal(end);
    const finished: HeldOutcome = { timings: tap.timings() };
    if (failure) finished.signal = failure;
    report(finished);
  });
}

/** What a body that failed mid-download says about the server (nothing, for our own aborts). */
function failureSignal(end: TapEnd): Signal | undefined {
  return end.error === undefined ? undefined : classify(end.error);
}
