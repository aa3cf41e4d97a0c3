import type { CancelTimer } from '../clock.js';
import type { ScopeRegistry, ScopeRegistryOptions } from '../controller/registry.js';
import { RedisTimeoutError } from '../errors.js';
import type { Fleet } from '../store/fleet.js';
import { type FleetSettings, type RedisFleetOptions, readFleetOptions } from './fleet-options.js';
import { FleetRegistry } from './fleet-registry.js';
import type { RedisLink } from './link.js';
import { type OpenedLink, openLink } from './open-link.js';
import { type LuaScript, withinMs } from './script.js';
import { Silence } from './silence.js';

/** `shared`: admission through Redis. `local`: Redis is out of reach; each worker runs on its share. */
export type FleetMode = 'shared' | 'local';

/** Told when the worker switches mode, with the reason. */
export type ModeListener = (mode: FleetMode, reason: string) => void;

/** Redis is out of reach only when it has not answered anything for this many call timeouts. */
const SILENT_TIMEOUTS = 3;

/**
 * One worker's membership of a fleet on Redis: the connection, the scripts
 * and the switch between shared and local mode. Every call waits on Redis for
 * at most `callTimeoutMs`; two failures in a row switch the worker to local
 * mode (a log line and a `fleet` event per scope) — when they are timeouts,
 * only if Redis has not answered anything, not even late, for
 * `SILENT_TIMEOUTS` call timeouts while this worker was running to hear it
 * ({@link Silence}): a slow reply on a busy machine is Redis still there, and
 * running alone then would overshoot the fleet's numbers. Redis is retried
 * every renewal period until it answers again.
 */
export class RedisFleet implements Fleet {
  /** The validated options. */
  readonly settings: FleetSettings;
  readonly #opened: OpenedLink;
  readonly #listeners = new Set<ModeListener>();
  #mode: FleetMode = 'local';
  #retry: CancelTimer | undefined;
  #closed = false;
  /** Calls failed in a row: one slow reply on a busy machine is not Redis going away. */
  #failures = 0;
  /** Since Redis's latest reply, on time or late. */
  readonly #silence: Silence;
  /** Round trips to Redis so far (scripts and retries), for measuring the cost per request. */
  roundTrips = 0;

  constructor(options: RedisFleetOptions) {
    this.settings = readFleetOptions(options);
    this.#silence = new Silence(this.settings.clock);
    this.#opened = openLink(options, Math.max(1000, this.settings.callTimeoutMs));
    // Until connected the worker runs locally; it joins as soon as Redis answers.
    this.#opened.ready.then(
      () => this.#join('connected'),
      () => undefined,
    );
    this.#scheduleRetry();
  }

  /** Resolves once the connection is up (at once for a client you passed). */
  get ready(): Promise<void> {
    return this.#opened.ready;
  }

  /** The connection. */
  get link(): RedisLink {
    return this.#opened.link;
  }

  /** Whether admission goes through Redis now. */
  get shared(): boolean {
    return this.#mode === 'shared';
  }

  /** A registry whose scopes are shared through this fleet (what `createClient({ fleet })` uses). */
  registry(options: ScopeRegistryOptions): ScopeRegistry {
    return new FleetRegistry(this, options);
  }

  /** Calls `listener` on every switch of mode; returns a function that stops it. */
  watch(listener: ModeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Runs `script` within `callTimeoutMs`. A failure (timeout, connection,
   * error reply) rejects; the second in a row switches the worker to local mode.
   * A reply that arrives after the timeout goes to `late`.
   */
  async run(
    script: LuaScript,
    keys: readonly string[],
    args: readonly string[],
    late?: (reply: unknown[]) => void,
  ): Promise<unknown[]> {
    this.roundTrips++;
    const { clock, callTimeoutMs } = this.settings;
    const silence = this.#silence;
    try {
      const reply = await withinMs(
        clock,
        callTimeoutMs,
        script.run(this.link, keys, args) as Promise<unknown[]>,
        (value) => {
          silence.heard();
          late?.(value);
        },
        (due, ran) => silence.timerRan(due, ran),
      );
      silence.heard();
      this.#failures = 0;
      return reply;
    } catch (error) {
      if (++this.#failures >= 2 && this.#unreachable(error)) this.#leave(error);
      throw error;
    }
  }

  /** Stops retrying and closes the connection if the fleet opened it. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#retry?.();
    this.#mode = 'local';
    await this.#opened.close();
  }

  /** Whether a second failure in a row means Redis is gone: an error, or a timeout after a silence. */
  #unreachable(error: unknown): boolean {
    if (!(error instanceof RedisTimeoutError)) return true;
    return this.#silence.ms >= SILENT_TIMEOUTS * this.settings.callTimeoutMs;
  }

  #leave(error: unknown): void {
    if (this.#mode === 'local' || this.#closed) return;
    this.#mode = 'local';
    const why = (error as { message?: unknown } | null)?.message ?? String(error);
    const { sinceHeardMs, ownDelayMs } = this.#silence;
    const silent = `nothing heard for ${Math.round(sinceHeardMs)} ms, ${Math.round(ownDelayMs)} ms of it this worker's own delay`;
    this.#announce(
      `Redis unreachable (${String(why)}; ${silent}); running locally on a safe share`,
    );
    this.#scheduleRetry();
  }

  #join(reason: string): void {
    if (this.#mode === 'shared' || this.#closed) return;
    this.#mode = 'shared';
    this.#failures = 0;
    this.#silence.heard();
    this.#retry?.();
    this.#retry = undefined;
    this.#announce(reason === 'connected' ? 'joined the fleet' : `Redis is back; ${reason}`);
  }

  #announce(reason: string): void {
    this.settings.log(`ratewise fleet (${this.settings.workerId}): ${reason}`);
    for (const listener of this.#listeners) listener(this.#mode, reason);
  }

  /** Pings Redis every renewal period while local; the first answer rejoins. */
  #scheduleRetry(): void {
    if (this.#closed || this.#retry) return;
    this.#retry = this.settings.clock.setTimer(this.settings.renewMs, () => {
      this.#retry = undefined;
      if (this.#mode === 'shared' || this.#closed) return;
      this.roundTrips++;
      withinMs(
        this.settings.clock,
        this.settings.callTimeoutMs,
        this.link.command(undefined, ['PING']),
      )
        .then(() => this.#join('shared mode resumed'))
        .catch(() => this.#scheduleRetry());
    });
  }
}

/**
 * A fleet on Redis for `createClient({ fleet })`, `ratewiseInterceptor({ fleet })`
 * or `ratewise crawl --redis URL`: every worker that uses the same Redis (and
 * `prefix`) shares one controller per scope.
 *
 * ```ts
 * const fleet = redisFleet({ url: 'redis://127.0.0.1:6379' });
 * const client = createClient({ fleet });
 * // … client.fetch(…) in every worker …
 * await client.close();
 * await fleet.close();
 * ```
 */
export function redisFleet(options: RedisFleetOptions): RedisFleet {
  return new RedisFleet(options);
}
