import { AdmissionTimeoutError, ScopePausedError } from '../errors/admission.js';
import type { AttemptControl, AttemptTarget } from './attempt-control.js';
import type { ControlledAttempt } from './controlled-attempt.js';

/** The Crawlee error that retries a request without using up `maxRequestRetries`. */
export type RetryRequestErrorClass = new (message?: string) => Error;

/** An admitted attempt and what is left of the navigation timeout, ms (`undefined`: none given). */
export interface AdmittedWithin {
  attempt: ControlledAttempt;
  leftMs: number | undefined;
}

/**
 * Waits for admission within half of `timeoutMs` — Crawlee's navigation
 * timeout, whose clock already runs while the request waits — and resolves
 * with the attempt and the time left of it, for the request's own timeout.
 * A request Crawlee has given up on is never sent: nobody would read it.
 *
 * When admission cannot come in time the rest of the cap is spent waiting
 * before failing (Crawlee retries at once, and a retry that failed fast would
 * spin through `maxRequestRetries`): a full queue fails with Crawlee's
 * `RetryRequestError`, which does not use up a retry (nothing was sent, the
 * server refused nothing); a scope paused for longer (Retry-After, an open
 * breaker) fails with the `ScopePausedError`, which does.
 */
export async function admitWithin(
  control: AttemptControl,
  target: AttemptTarget,
  timeoutMs: number | undefined,
  RetryRequestError: RetryRequestErrorClass,
): Promise<AdmittedWithin> {
  if (!timeoutMs) return { attempt: await control.admit(target), leftMs: undefined };
  const { clock } = control;
  const started = clock.now();
  const capMs = timeoutMs / 2;
  try {
    const attempt = await control.admit({ ...target, timeoutMs: capMs });
    return { attempt, leftMs: Math.max(1, timeoutMs - (clock.now() - started)) };
  } catch (error) {
    const queued = error instanceof AdmissionTimeoutError;
    if (!queued && !(error instanceof ScopePausedError)) throw error;
    await clock.sleep(started + capMs - clock.now(), target.signal);
    throw queued ? new RetryRequestError(error.message) : error;
  }
}

/** The Crawlee session a request runs in, as scope context (`byContext('session')`). */
export function sessionContext(session: { id: string } | undefined) {
  return session?.id ? { context: { session: session.id } } : {};
}
