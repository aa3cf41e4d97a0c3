import type { Transform } from 'node:stream';
import type { Dispatcher } from 'undici';
import { Cancellation } from './cancellation.js';
import { decoders } from './content-decoding.js';
import { DecodedMeter } from './decoded-meter.js';
import type { ResponseTap } from './response-tap.js';
import type { BodySink } from './tap-body.js';

/**
 * Hands the final attempt's response to the caller's handler, body streaming
 * with backpressure — a compressed one through a {@link DecodedMeter}, so that
 * whoever decodes it (undici's `fetch` does) never gets past `maxBodyBytes`.
 */
export function forward(
  tap: ResponseTap,
  controller: ForwardController,
  handler: Dispatcher.DispatchHandler,
  maxBodyBytes: number,
): void {
  controller.attach(tap);
  if (controller.aborted) {
    fail(controller, handler, controller.reason);
    return;
  }
  handler.onResponseStart?.(controller, tap.status, tap.headers, tap.statusText);
  const stages = decodersOf(tap);
  if (stages) {
    tap.consume(meteredSink(tap, controller, handler, stages, maxBodyBytes));
    return;
  }
  tap.consume({
    data: (chunk) => {
      handler.onResponseData?.(controller, chunk);
      return !controller.paused;
    },
    end: () => handler.onResponseEnd?.(controller, {}),
    error: (error) => handler.onResponseError?.(controller, error as Error),
  });
}

/** The decoders of a compressed body; none for too many codings (undici's fetch refuses those itself). */
function decodersOf(tap: ResponseTap): [Transform, ...Transform[]] | undefined {
  try {
    return decoders(tap.status, tap.headers, tap.bodiless);
  } catch {
    return undefined;
  }
}

/** Each chunk goes to the handler once the meter has decoded it within the cap. */
function meteredSink(
  tap: ResponseTap,
  controller: ForwardController,
  handler: Dispatcher.DispatchHandler,
  stages: [Transform, ...Transform[]],
  maxBodyBytes: number,
): BodySink {
  let failed = false;
  const failWith = (error: unknown) => {
    if (failed) return;
    failed = true;
    meter.stop();
    handler.onResponseError?.(controller, error as Error);
  };
  const meter = new DecodedMeter(stages, maxBodyBytes, tap.url, (error) => {
    tap.abort(error);
    failWith(error);
  });
  return {
    data: (chunk) => {
      meter.count(chunk, () => {
        handler.onResponseData?.(controller, chunk);
        if (!controller.paused) tap.resume();
      });
      return false; // the next chunk waits until this one is counted
    },
    end: () => meter.end(() => handler.onResponseEnd?.(controller, {})),
    error: failWith,
  };
}

export function fail(
  controller: ForwardController,
  handler: Dispatcher.DispatchHandler,
  error: unknown,
): void {
  const failure = error instanceof Error ? error : new Error(String(error));
  handler.onResponseError?.(controller, failure);
}

/**
 * The controller the caller's handler sees from the start: aborting it
 * cancels the attempt loop (waiting for admission, backing off, or the
 * attempt in flight); once the response is attached, pausing and resuming
 * reach its download.
 */
export class ForwardController implements Dispatcher.DispatchController {
  /** Aborted with the handler's reason when it aborts. */
  readonly cancellation = new Cancellation();
  #tap: ResponseTap | undefined;
  #paused = false;

  get aborted(): boolean {
    return this.cancellation.aborted;
  }

  get paused(): boolean {
    return this.#paused;
  }

  get reason(): Error | null {
    return this.cancellation.reason ?? null;
  }

  /** Connects the final attempt's response: pausing, resuming and aborting now reach it. */
  attach(tap: ResponseTap): void {
    this.#tap = tap;
    const { reason } = this.cancellation;
    if (reason) tap.abort(reason);
  }

  abort(reason: Error): void {
    if (this.aborted) return;
    this.cancellation.abort(reason);
    this.#tap?.abort(reason);
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#tap?.resume();
  }
}
