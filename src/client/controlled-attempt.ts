import { classify, classifyWith } from '../classify.js';
import type { Signal } from '../signal.js';
import { type AttemptOutcome, type AttemptSpec, runAttempts } from './attempts.js';
import type { CancelSource } from './cancellation.js';
import type { ControlledSettings } from './options.js';
import { ResponseTap } from './response-tap.js';
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
  const { clock } = settings;
  const sniffAll = settings.classify.isBlocked !== undefined;
  // Your isBlocked test is shown the headers as a real `Headers`; the built-in rules index undici's object.
  const classifyTap = (tap: ResponseTap): Signal =>
    classifyWith(
      {
        status: tap.status,
        headers: sniffAll ? toHeaders(tap.headers) : tap.headers,
        body: tap.prefix,
      },
      { ...settings.classify, now: clock.wallNow() },
    );
  const spec: AttemptSpec<ResponseTap> = {
    url: request.url,
    method: request.method,
    scopes: request.scopes,
    send: (signal) => {
      const tap = new ResponseTap({
        url: request.url,
        method: request.method,
        clock,
        maxBodyBytes: settings.maxBodyBytes,
        timeoutMs: settings.timeoutMs,
        sniff: (status) => sniffAll || SNIFFED.has(status),
        ...(signal ? { signal } : {}),
      });
      request.dispatch(tap);
      return tap.head;
    },
    classify: classifyTap,
    timings: (tap) => tap.timings(),
    discard: (tap) => tap.discard(),
    hold: (tap, report) =>
      tap.onEnd((end) => {
        const failure = failureSignal(end);
        report({ timings: tap.timings(), ...(failure ? { signal: failure } : {}) });
      }),
    ...(request.signal ? { signal: request.signal } : {}),
    ...(request.admitSignal ? { admitSignal: request.admitSignal } : {}),
  };
  return runAttempts(settings, spec);
}

/** What a body that failed mid-download says about the server (nothing, for our own aborts). */
function failureSignal(end: TapEnd): Signal | undefined {
  return end.error === undefined ? undefined : classify(end.error);
}
