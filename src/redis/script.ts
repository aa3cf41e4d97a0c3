import { createHash } from 'node:crypto';
import type { CancelTimer, Clock } from '../clock.js';
import { RedisTimeoutError } from '../errors.js';
import type { RedisLink } from './link.js';

/**
 * A Lua script run by `EVALSHA`. When the server has not cached it (a restart,
 * a `SCRIPT FLUSH`, a failover), the error reply starts with `NOSCRIPT` — the
 * one prefix Redis documents for it — and the script is sent once with `EVAL`,
 * which caches it again. No other error text steers anything.
 */
export class LuaScript {
  /** The script's SHA-1, as `EVALSHA` names it. */
  readonly sha: string;

  /** @param source Lua that reads its keys from `KEYS` and its arguments from `ARGV` only. */
  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /** Runs the script on the node that owns `keys` (all in one slot). */
  async run(link: RedisLink, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await link.command(keys[0], ['EVALSHA', this.sha, ...tail]);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return link.command(keys[0], ['EVAL', this.source, ...tail]);
    }
  }
}

function isNoScript(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message.startsWith('NOSCRIPT');
}

/**
 * `call`, given at most `ms` on `clock`: a slow or stalled Redis costs a
 * caller no more than that. A reply that comes later goes to `late` (to undo
 * what the call did, say), else it is dropped. A reply already received when
 * the time is up is not late: a worker descheduled past both its reply and
 * its deadline runs the timer first, so the verdict waits for one more timer
 * turn — after the event loop has read what arrived meanwhile. `timerRan` is
 * told when each of the two timers was due and when it ran (how long the
 * worker itself was not running).
 */
export function withinMs<T>(
  clock: Clock,
  ms: number,
  call: Promise<T>,
  late?: (value: T) => void,
  timerRan?: (due: number, ran: number) => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    let timedOut = false;
    const due = clock.now() + ms;
    let cancel: CancelTimer | undefined = clock.setTimer(ms, () => {
      const turn = clock.now();
      timerRan?.(due, turn);
      cancel = clock.setTimer(0, () => {
        timerRan?.(turn, clock.now());
        cancel = undefined;
        timedOut = true;
        reject(new RedisTimeoutError(ms));
      });
    });
    call.then(
      (value) => {
        cancel?.();
        if (timedOut) late?.(value);
        else resolve(value);
      },
      (error: unknown) => {
        cancel?.();
        reject(error);
      },
    );
  });
}
