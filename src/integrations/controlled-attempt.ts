import type { ClassifySettings } from '../classify/options.js';
import { classifyWith } from '../classify.js';
import { isRateSignal } from '../client/retry-policy.js';
import type { Clock } from '../clock.js';
import type { Permit } from '../controller/permit.js';
import type { HeadersInput } from '../headers/header-value.js';
import type { Signal } from '../signal.js';
import type { PhaseTimings } from '../timings.js';

/** A response as an integration hands it over: status and headers (a body prefix, optionally). */
export interface AttemptResponse {
  /** HTTP status code. */
  status: number;
  /** Response headers, in any shape (`Headers`, Node's object, pairs). */
  headers: HeadersInput;
  /** A prefix of the body as a string, for block-page and rate-limit-page markers. */
  body?: string;
}

/**
 * One admitted attempt of a request sent by another library (axios, got,
 * Crawlee, a browser). It holds its scopes' permit until its outcome is
 * reported: {@link respond} with the response, {@link fail} with the error, or
 * {@link release} when it was never sent. The first of them wins and every
 * later call is ignored, so a library's hooks may all report the same attempt.
 */
export class ControlledAttempt {
  readonly #permit: Permit;
  readonly #classify: ClassifySettings;
  readonly #clock: Clock;
  #signal: Signal | undefined;
  #ended = false;

  /** @internal Made by `AttemptControl.admit`. */
  constructor(permit: Permit, classify: ClassifySettings, clock: Clock) {
    this.#permit = permit;
    this.#classify = classify;
    this.#clock = clock;
  }

  /** Monotonic ms at which the attempt was admitted (its send time). */
  get sentAt(): number {
    return this.#permit.sentAt;
  }

  /** Whether the outcome has been reported (or the permit released). */
  get ended(): boolean {
    return this.#ended;
  }

  /** The classified outcome, once reported; `undefined` before, or when it said nothing. */
  get signal(): Signal | undefined {
    return this.#signal;
  }

  /** Reports a response (any status); returns its signal, or the first outcome's if already ended. */
  respond(response: AttemptResponse, timings?: PhaseTimings): Signal | undefined {
    if (this.#ended) return this.#signal;
    const signal = classifyWith(response, { ...this.#classify, now: this.#clock.wallNow() });
    this.#end(signal, timings);
    return signal;
  }

  /**
   * Reports `response` now if its head alone says the server refused it (a
   * rate signal: 429, 503…, as the classifier reads it without a body), and
   * returns whether it did. Otherwise nothing is reported: the library
   * reports the response once its body is over (the slot is busy until then).
   * A refusal's body says nothing the controller needs, and every ms it
   * waits to be heard more requests go out into the refusal.
   */
  respondIfRefused(response: AttemptResponse): boolean {
    if (this.#ended) return false;
    const signal = classifyWith(response, { ...this.#classify, now: this.#clock.wallNow() });
    if (!isRateSignal(signal)) return false;
    this.#end(signal, undefined);
    return true;
  }

  /**
   * Reports a failure without a response (reset, refused, timeout). An abort
   * by the caller, or an error of ratewise's own, says nothing about the
   * server: the permit is released without an outcome and `undefined` returned.
   * An error carrying a response (`error.response`) is read as that response.
   */
  fail(error: unknown): Signal | undefined {
    if (this.#ended) return this.#signal;
    const signal = classifyWith(error, { ...this.#classify, now: this.#clock.wallNow() });
    this.#end(signal, undefined);
    return signal;
  }

  /** Reports a timeout the library measured itself (its own timeout error's code says less). */
  timedOut(reason: string): Signal | undefined {
    if (this.#ended) return this.#signal;
    const signal: Signal = { kind: 'timeout', reason };
    this.#end(signal, undefined);
    return signal;
  }

  /** Frees the permit without an outcome: the attempt was not sent, or was cancelled. */
  release(): void {
    this.#end(undefined, undefined);
  }

  #end(signal: Signal | undefined, timings: PhaseTimings | undefined): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#signal = signal;
    if (signal === undefined) this.#permit.release();
    else this.#permit.report(signal, timings ? { timings } : undefined);
  }
}
