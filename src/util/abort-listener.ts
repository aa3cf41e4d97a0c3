/** The listeners of one signal, behind its one real `abort` listener. */
interface Fanout {
  readonly listeners: Set<() => void>;
  readonly onAbort: () => void;
}

const fanouts = new WeakMap<AbortSignal, Fanout>();

/**
 * Calls `listener` once when `signal` aborts, until the returned function is
 * called. However many requests share a signal (a crawl's, a page's), it gets
 * one `abort` listener: they all hang off that one, so sharing a signal costs
 * no per-request listener on it and never sets off Node's
 * `MaxListenersExceededWarning`. The real listener goes when the last
 * request stops listening, so a long-lived signal is not kept listened to.
 */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  let fanout = fanouts.get(signal);
  if (fanout === undefined) {
    const listeners = new Set<() => void>();
    const created: Fanout = {
      listeners,
      onAbort: () => {
        fanouts.delete(signal);
        for (const each of listeners) each();
        listeners.clear();
      },
    };
    fanout = created;
    fanouts.set(signal, created);
    signal.addEventListener('abort', created.onAbort, { once: true });
  }
  // A wrapper of its own, so the same function registered twice is called twice.
  const entry = () => listener();
  const { listeners } = fanout;
  listeners.add(entry);
  const owner = fanout;
  return () => {
    if (!listeners.delete(entry) || listeners.size > 0) return;
    if (fanouts.get(signal) === owner) fanouts.delete(signal);
    signal.removeEventListener('abort', owner.onAbort);
  };
}
