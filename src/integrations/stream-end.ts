import type { Readable } from 'node:stream';

/**
 * Calls `done` once when a response body stream is over: with no error when
 * it ended or was destroyed by its reader (giving up on a body says nothing
 * about the server), with the error when the download itself failed.
 */
export function streamEnded(stream: Readable, done: (error?: unknown) => void): void {
  let called = false;
  const once = (error?: unknown): void => {
    if (called) return;
    called = true;
    stream.off('end', onEnd);
    stream.off('error', once);
    stream.off('close', onClose);
    done(error);
  };
  const onEnd = (): void => once();
  const onClose = (): void => once(stream.errored ?? undefined);
  stream.once('end', onEnd);
  stream.once('error', once);
  stream.once('close', onClose);
  if (stream.destroyed) onClose();
}
