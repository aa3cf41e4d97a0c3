import type { WaitOptions } from '../enforce/wait-queue.js';
import { abortReason } from '../errors.js';
import { onAbort } from '../util/abort-listener.js';

/**
 * One request's cancellation, made to cost nothing while nobody cancels. An
 * `AbortSignal` is dear to make in Node (about 2 µs, a fifth of what ratewise
 * adds to a request), so the signal that waits need is made only when a wait
 * asks for it, and the attempt in flight hears of an abort through a plain
 * callback instead of an event listener. The interceptor uses one for the
 * controller undici hands its caller; the attempt loop and the response tap
 * accept it wherever they accept an `AbortSignal`.
 */
export class Cancellation implements WaitOptions {
  #reason: Error | undefined;
  #controller: AbortController | undefined;
  #listeners: ((reason: Error) => void)[] | undefined;

  /** Whether the request was cancelled. */
  get aborted(): boolean {
    return this.#reason !== undefined;
  }

  /** Why, once cancelled. */
  get reason(): Error | undefined {
    return this.#reason;
  }

  /**
   * A signal that aborts with this cancellation, made on first use. A
   * `Cancellation` is itself the options of an admission wait: a scope with
   * a free slot admits at once without reading the signal.
   */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#reason !== undefined) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Cancels the request with `reason`; later calls do nothing. */
  abort(reason: Error): void {
    if (this.#reason !== undefined) return;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    for (const listener of listeners ?? []) listener(reason);
  }

  /** Calls `listener` on abort until the returned function is called (an attempt in flight). */
  watch(listener: (reason: Error) => void): () => void {
    this.#listeners ??= [];
    this.#listeners.push(listener);
    return () => {
      const index = this.#listeners?.indexOf(listener) ?? -1;
      if (index >= 0) this.#listeners?.splice(index, 1);
    };
  }
}

/** A caller's cancellation as the client takes it: a standard signal or a {@link Cancellation}. */
export type CancelSource = AbortSignal | Cancellation;

/** The `AbortSignal` of `source`, for APIs that need a real one (made now for a {@link Cancellation}). */
export function signalOf(source: CancelSource): AbortSignal {
  return source instanceof Cancellation ? source.signal : source;
}

/** Why `source` aborted (a `DOMException` when a signal aborted without a reason). */
export function reasonOf(source: CancelSource): unknown {
  return source instanceof Cancellation ? source.reason : abortReason(source);
}

/** Calls `listener` once when `source` aborts, until the returned function is called. */
export function onCancel(source: CancelSource, listener: () => void): () => void {
  return source instanceof Cancellation ? source.watch(listener) : onAbort(source, listener);
}
