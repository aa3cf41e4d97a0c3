import type { ScopeKeys } from './keys.js';
import { acquireScript } from './lua/acquire.js';
import { adoptScript, heartbeatScript, passOnScript } from './lua/heartbeat.js';
import { releaseScript } from './lua/release.js';
import { shareScript } from './lua/share.js';
import type { RedisFleet } from './redis-fleet.js';

/** What a request's end tells the fleet besides freeing its lease. */
export interface EndReport {
  /** The server's Retry-After, ms (0 for none): pauses the whole fleet. */
  retryAfterMs: number;
  /** When the response arrived, Redis ms (0: unknown); the pause counts from it. */
  receivedAt: number;
  /** Whether the outcome is a congestion signal (it claims the epoch to cut). */
  congestion: boolean;
  /** The epoch the request was admitted under. */
  epoch: number;
  /** The outcome queued for learning (JSON). */
  outcome: string;
  /** Outcomes answered before it and not sent yet (gathered under a rate lease): queued ahead of it. */
  earlier?: readonly string[];
}

/** What one acquire call asks for (see {@link ScopeCalls.acquire}). */
export interface AcquireAsk {
  readonly count: number;
  readonly first: number;
  readonly more: boolean;
  readonly knownVersion: number;
  /** Leases this worker holds on the scope, besides those in `ends`. */
  readonly held: number;
  readonly ends: readonly (readonly [leaseId: string, outcome: string])[];
}

/** Outcomes kept queued for learning at most (the oldest are dropped). */
const MAX_OUTCOMES = 10_000;
/**
 * How long the learning lock is held between a learner's looks, ms: a learner
 * that died hands the scope to another worker after this.
 */
export const LOCK_MS = 4000;

/** The Redis calls of one scope: each is one script, one round trip. */
export class ScopeCalls {
  readonly #fleet: RedisFleet;
  readonly #keys: ScopeKeys;
  readonly #scope: string;
  readonly #initial: readonly [window: string, rate: string];

  /** `initial`: the window and stored rate a scope new to Redis starts with. */
  constructor(fleet: RedisFleet, keys: ScopeKeys, scope: string, initial: [string, string]) {
    this.#fleet = fleet;
    this.#keys = keys;
    this.#scope = scope;
    this.#initial = initial;
  }

  /**
   * `acquireScript`: ends the requests in `ask.ends` (lease id and outcome,
   * '' for none) and takes up to `ask.count` leases, numbered from
   * `ask.first`; `knownVersion` spares resending learned state already known;
   * `more`: other callers of this worker wait beyond `count`. A reply that
   * comes after the call timed out goes to `late`.
   */
  acquire(ask: AcquireAsk, late: (reply: unknown[]) => void): Promise<unknown[]> {
    const { settings } = this.#fleet;
    const k = this.#keys;
    return this.#fleet.run(
      acquireScript,
      [k.state, k.leases, k.workers, k.waiting, k.shares, k.samples, k.learner, k.channel, k.order],
      [
        `${settings.workerId}#`,
        settings.workerId,
        String(settings.leaseMs),
        String(settings.horizonMs),
        String(ask.knownVersion),
        ...this.#initial,
        String(settings.stateTtlMs),
        this.#scope,
        '1',
        String(settings.leaseMs * 2),
        ask.more ? '1' : '0',
        String(ask.count),
        String(ask.first),
        String(ask.ends.length),
        String(MAX_OUTCOMES),
        String(LOCK_MS),
        String(ask.held),
        ...ask.ends.map(([leaseId]) => leaseId),
        ...ask.ends.map(([, outcome]) => outcome),
      ],
      late,
    );
  }

  /** `releaseScript`: frees `leaseId` ('' for none) and applies `report` at once (a pause, a cut, an alarm), outcomes answered before it first. */
  end(leaseId: string, report: EndReport): Promise<unknown[]> {
    const { settings } = this.#fleet;
    const k = this.#keys;
    const keys = [k.state, k.leases, k.samples, k.learner, k.channel, k.workers, k.waiting];
    keys.push(k.order, k.shares); // the admission order, and whether a rate lease is held
    return this.#fleet.run(releaseScript, keys, [
      leaseId,
      settings.workerId,
      String(Math.ceil(report.retryAfterMs)),
      report.congestion ? '1' : '0',
      String(report.epoch),
      report.outcome,
      String(MAX_OUTCOMES),
      String(LOCK_MS),
      String(settings.stateTtlMs),
      String(report.receivedAt),
      ...(report.earlier ?? []),
    ]);
  }

  /**
   * `shareScript`: takes, renews or (wanting 0 slots) drops this worker's rate
   * lease (`held`: its slots now, its per-request leases on the scope, its
   * requests running under the share),
   * bringing the `outcomes` gathered under it for the learner.
   */
  share(
    want: { slots: number; rate: number },
    held: { share: number; leases: number; running: number },
    knownVersion: number,
    outcomes: readonly string[],
  ): Promise<unknown[]> {
    const { settings } = this.#fleet;
    const k = this.#keys;
    return this.#fleet.run(
      shareScript,
      [k.state, k.leases, k.workers, k.shares, k.samples, k.learner, k.waiting, k.channel],
      [
        settings.workerId,
        String(settings.leaseMs),
        String(want.slots),
        Number.isFinite(want.rate) ? String(want.rate) : '0',
        String(held.share),
        String(settings.leaseMs * 2),
        String(settings.stateTtlMs),
        String(MAX_OUTCOMES),
        String(LOCK_MS),
        String(knownVersion),
        String(held.leases),
        String(held.running),
        ...outcomes,
      ],
    );
  }

  /** `passOnScript`: wakes the next waiting worker if a slot is free. */
  passOn(): Promise<unknown[]> {
    const k = this.#keys;
    const keys = [k.state, k.leases, k.workers, k.waiting, k.channel];
    return this.#fleet.run(passOnScript, keys, [this.#fleet.settings.workerId]);
  }

  /** `adoptScript`: leases requests admitted while Redis was out of reach. */
  adopt(leaseIds: readonly string[]): Promise<unknown[]> {
    const { settings } = this.#fleet;
    return this.#fleet.run(
      adoptScript,
      [this.#keys.state, this.#keys.leases, this.#keys.order],
      [String(settings.leaseMs), ...leaseIds],
    );
  }

  /** `heartbeatScript`: pushes the expiry of `leaseIds` forward and marks the worker live. */
  renew(leaseIds: readonly string[]): Promise<unknown[]> {
    const { settings } = this.#fleet;
    return this.#fleet.run(
      heartbeatScript,
      [this.#keys.state, this.#keys.leases, this.#keys.workers],
      [settings.workerId, String(settings.leaseMs * 2), String(settings.leaseMs), ...leaseIds],
    );
  }
}
