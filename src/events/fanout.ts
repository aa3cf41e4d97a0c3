import { InvalidOptionError } from '../errors.js';
import { func } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import type { ControlEvent, EventSink } from './event.js';
import type { BufferedSink } from './jsonl-sink.js';

/** Options of {@link fanout}. */
export interface FanoutOptions {
  /**
   * Called with a sink's error the first time that sink throws (once per sink,
   * however often it throws afterwards) and with a failed `flush()`/`close()`.
   * @default a one-time `process.emitWarning` per sink
   */
  onError?: (error: unknown, sink: EventSink) => void;
}

const OWNER = 'fanout';
const readOptions = defineOptions<FanoutOptions>()(OWNER, { onError: func(warn) });

/**
 * One sink that hands every event to several, in order. A sink that throws
 * does not stop the others and keeps receiving later events; its first error
 * is reported. `flush()` and `close()` reach every sink that has them
 * (such as a {@link jsonlSink}) and wait for all of them.
 *
 * ```ts
 * const sink = fanout([jsonlSink('run/events.jsonl'), recorder.sink]);
 * ```
 */
export function fanout(sinks: readonly EventSink[], options: FanoutOptions = {}): BufferedSink {
  const { onError } = readOptions(options);
  if (!Array.isArray(sinks) || !sinks.every((sink) => typeof sink === 'function')) {
    throw InvalidOptionError.invalid(OWNER, 'sinks', sinks, 'an array of sink functions');
  }
  const targets = sinks.slice();
  const report = reportOncePerSink(onError);
  const send = (event: ControlEvent): void => {
    for (const sink of targets) {
      try {
        sink(event);
      } catch (error) {
        report(error, sink);
      }
    }
  };
  return Object.assign(send, {
    flush: () => forEachBuffered(targets, 'flush', report),
    close: () => forEachBuffered(targets, 'close', report),
  });
}

function reportOncePerSink(
  onError: (error: unknown, sink: EventSink) => void,
): (error: unknown, sink: EventSink) => void {
  const reported = new Set<EventSink>();
  return (error, sink) => {
    if (reported.has(sink)) return;
    reported.add(sink);
    try {
      onError(error, sink);
    } catch {
      // A failing error handler must not break event delivery either.
    }
  };
}

/** Calls `flush` or `close` on every sink that has it; rejects with the first failure after all settled. */
async function forEachBuffered(
  sinks: readonly EventSink[],
  method: 'flush' | 'close',
  report: (error: unknown, sink: EventSink) => void,
): Promise<void> {
  const runs = sinks.map(async (sink) => {
    const action = (sink as Partial<BufferedSink>)[method];
    if (typeof action === 'function') await action.call(sink);
  });
  const results = await Promise.allSettled(runs);
  const failed = results.findIndex((result) => result.status === 'rejected');
  if (failed === -1) return;
  const reason = (results[failed] as PromiseRejectedResult).reason;
  report(reason, sinks[failed] as EventSink);
  throw reason;
}

function warn(error: unknown): void {
  process.emitWarning(
    `${OWNER}: a sink threw: ${error instanceof Error ? error.message : String(error)}`,
  );
}
