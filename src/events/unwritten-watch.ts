/** What a buffering sink tells the watch: its name and how many events it holds unwritten. */
export interface UnwrittenCount {
  /** How the sink is named in the warning, e.g. `jsonlSink(events.jsonl)`. */
  readonly label: string;
  /** Events received and not yet written; the sink keeps it current. */
  unwritten: number;
}

const live = new Set<UnwrittenCount>();
const collected = new FinalizationRegistry<UnwrittenCount>((count) => {
  live.delete(count);
  warn(count, 'the sink was garbage-collected');
});
let listening = false;

/**
 * Watches a buffering sink until {@link unwatch}: if the process exits, or
 * the sink is garbage-collected, while it still holds events it never wrote,
 * a warning on stderr says how many and what to call. The watch holds only
 * `count`, never the sink, so a forgotten sink can still be collected; one
 * `exit` listener serves every sink.
 */
export function watchUnwritten(sink: object, count: UnwrittenCount): void {
  live.add(count);
  collected.register(sink, count, count);
  if (listening) return;
  listening = true;
  process.once('exit', () => {
    for (const left of live) warn(left, 'the process exited');
  });
}

/** Ends the watch of a sink that has been closed. */
export function unwatch(count: UnwrittenCount): void {
  live.delete(count);
  collected.unregister(count);
}

/** Written synchronously: at exit, `process.emitWarning` would never be printed. */
function warn(count: UnwrittenCount, when: string): void {
  if (count.unwritten <= 0) return;
  process.stderr.write(
    `ratewise: ${count.label} lost ${count.unwritten} event(s): ${when} before they were written; await its close() (or flush()) before exiting\n`,
  );
}
