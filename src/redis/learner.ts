import type { CancelTimer, Clock } from '../clock.js';
import type { ScopeFactory } from '../controller/registry.js';
import type { ScopeFeedback } from '../controller/scope-feedback.js';
import { FleetDrain } from './fleet-drain.js';
import { storedRate } from './fleet-view.js';
import type { ScopeKeys } from './keys.js';
import { judging, learnWith, parseOutcomes, resume } from './learn-step.js';
import { learnApplyScript, learnReadScript } from './lua/learn.js';
import type { RedisFleet } from './redis-fleet.js';
import { LOCK_MS } from './scope-calls.js';

/** Outcomes learned from in one step at most. */
const MAX_BATCH = 1000;
/**
 * Outcomes worth a learning step: while fewer arrive per `learnEveryMs`, the
 * learner looks less often, up to every `MAX_LOOK_MS` (a slow scope is
 * learned in batches too, not at two calls per outcome; refusals are learned
 * at once anyway). Below the learning lock's time, so the lock stays.
 */
const BATCH = 8;
const MAX_LOOK_MS = Math.floor(LOCK_MS / 2);

/**
 * This worker's turn at learning a scope, while it holds the scope's learning
 * lock (taken by the worker whose outcome found it free: it looks at once when
 * a refusal's count is due, else after `learnEveryMs`, when the outcomes of
 * requests answered with its own have come too): read the queued outcomes
 * with the state they apply to, compute the
 * new state with the scope's algorithms ({@link learnFrom}), write it back
 * if nobody changed it meanwhile, then look again after `learnEveryMs` (or
 * later on a slow scope, see `BATCH`) if outcomes came meanwhile. The lock
 * stays with this worker while outcomes keep coming (they are learned in
 * batches, by algorithms that carry on between steps). With nothing queued
 * it does not look — a quiet scope costs no calls — until the worker queuing
 * the next outcomes tells it ({@link Learner.nudged}); the lock lapses after
 * `LOCK_MS` without a look.
 */
export class Learner {
  readonly #fleet: RedisFleet;
  readonly #keys: ScopeKeys;
  readonly #scope: string;
  readonly #setup: ScopeFactory;
  readonly #clock: Clock;
  #running = false;
  /** The steps under way, while `#running`. */
  #stepping: Promise<void> = Promise.resolve();
  /**
   * Until when this worker holds the scope's learning lock, as far as it knows
   * (local ms; a lock not refreshed for `LOCK_MS` has lapsed, and another
   * worker may have taken it).
   */
  #heldUntil = 0;
  #again = false;
  #next: CancelTimer | undefined;
  /** A cut settles in Redis: the step after it waits (see `learnReadScript`). */
  #settling: CancelTimer | undefined;
  #stopped = false;
  /** Told of new outcomes while a step ran (it may have read before they came). */
  #nudged = false;
  /** Local ms of the last look, and how long until the next. */
  #lookedAt: number | undefined;
  #lookInMs: number;
  /** The algorithms (judging as a local controller would) of this worker's last write, and the version it wrote. */
  #kept: { version: number; feedback: ScopeFeedback; drain: FleetDrain } | undefined;

  constructor(
    fleet: RedisFleet,
    keys: ScopeKeys,
    scope: string,
    setup: ScopeFactory,
    clock: Clock,
  ) {
    this.#fleet = fleet;
    this.#keys = keys;
    this.#scope = scope;
    this.#setup = setup;
    this.#clock = clock;
    this.#lookInMs = fleet.settings.learnEveryMs;
  }

  /** Learns now (this worker was just handed the lock), or right after the step under way. */
  learn(): void {
    this.#heldUntil = this.#clock.now() + LOCK_MS;
    this.#look();
  }

  /** Looks now, or right after the step under way (not while a cut settles). */
  #look(): void {
    if (this.#stopped) return;
    if (this.#settling) return; // the cut's step comes when it has settled
    this.#next?.();
    this.#next = undefined;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    this.#stepping = this.#steps()
      .catch(() => undefined) // the fleet went local; the lock expires by itself
      .finally(() => {
        this.#running = false;
      });
  }

  /**
   * This worker was just handed the lock for outcomes that need no haste: it
   * looks after `learnEveryMs`, so the outcomes of the scope's requests still
   * in flight (a scope shared by workers answers several at once) are learned
   * in the same step — not in one read and write each.
   */
  learnSoon(): void {
    if (this.#stopped) return;
    this.#heldUntil = this.#clock.now() + LOCK_MS;
    if (this.#running) this.#again = true;
    if (this.#running || this.#settling || this.#next !== undefined) return;
    this.#lookedAt = this.#clock.now(); // the outcomes it will find came from now on
    this.#lookIn(this.#fleet.settings.learnEveryMs);
  }

  /**
   * Outcomes were queued for this worker, holding the lock, after it stopped
   * looking: it looks again after its batch time (`learnEveryMs` at least).
   */
  nudged(): void {
    if (this.#stopped) return; // Redis names this worker the holder
    this.#nudged = true;
    if (this.#running || this.#next !== undefined) return;
    this.#lookedAt = this.#clock.now(); // the outcomes it will find came from now on
    this.#lookAgain();
  }

  /**
   * This worker just queued outcomes (a share's renewal brought them): if it
   * holds the lock, they are learned now, not at its next look — the fleet's
   * numbers then follow the outcomes by one renewal, not by a renewal and a look.
   */
  queued(): void {
    if (this.#holding()) this.#look();
  }

  /**
   * Stops looking again (the scope is closing) — after one last step if this
   * worker holds the lock: outcomes its last requests queued are learned, not
   * left for whoever takes the lock once it expires (a short run would
   * otherwise teach the fleet nothing).
   */
  async finish(): Promise<void> {
    this.#stopped = true;
    this.#next?.();
    this.#next = undefined;
    this.#settling?.();
    this.#settling = undefined;
    await this.#stepping;
    if (!this.#holding() || !this.#fleet.shared) return;
    const step = await this.#step().catch(() => undefined);
    if (typeof step !== 'number') return;
    await new Promise<void>((resolve) => this.#clock.setTimer(step, resolve));
    await this.#step().catch(() => undefined);
  }

  async #steps(): Promise<void> {
    do {
      this.#again = false;
      const startedAt = this.#clock.now();
      const step = await this.#step();
      this.#heldUntil = step === 'lost' ? 0 : startedAt + LOCK_MS;
      if (typeof step === 'number') this.#settle(step);
      else if (step === 'more' || (step === 'idle' && this.#nudged)) this.#lookAgain();
    } while (this.#again && !this.#stopped && !this.#settling);
  }

  /** Learns once the cut settled, `ms` from now (nothing is read meanwhile). */
  #settle(ms: number): void {
    if (this.#stopped) return;
    this.#next?.();
    this.#next = undefined;
    this.#settling = this.#clock.setTimer(ms, () => {
      this.#settling = undefined;
      this.#look();
    });
  }

  /**
   * One read-compute-write: 'more' (outcomes came meanwhile: look again),
   * 'idle' (nothing queued, the lock kept: look when told), 'lost' (another
   * worker holds the lock), or the ms a cut still settles (the lock kept):
   * a call's time, by when the other workers' outcomes answered before the
   * refusal have come (they send them when they hear of it).
   */
  async #step(): Promise<'more' | 'idle' | 'lost' | number> {
    const { settings } = this.#fleet;
    const k = this.#keys;
    const read = await this.#fleet.run(
      learnReadScript,
      [k.state, k.samples, k.learner],
      [settings.workerId, String(LOCK_MS), String(MAX_BATCH), String(settings.callTimeoutMs)],
    );
    if (Number(read[0]) === 3) return Number(read[1]);
    this.#pace(Number(read[0]) === 1 ? (read[4] as unknown[]).length : 0);
    if (Number(read[0]) !== 1) return Number(read[0]) === 2 ? 'idle' : 'lost';
    const raw = read[4] as unknown[];
    const version = Number(read[2]);
    // Our own algorithms when the state is still the one we wrote; else resumed from Redis.
    const redisNow = Number(read[1]);
    const kept = this.#kept?.version === version ? this.#kept : undefined;
    const feedback =
      kept?.feedback ??
      judging(resume(this.#setup, this.#scope, String(read[3] ?? ''), redisNow), redisNow);
    const drain = kept?.drain ?? new FleetDrain();
    this.#kept = undefined;
    const next = learnWith(feedback, parseOutcomes(raw), drain);
    const applied = await this.#fleet.run(
      learnApplyScript,
      [k.state, k.samples, k.learner, k.channel],
      [
        settings.workerId,
        String(read[2]),
        String(raw.length),
        next.learned,
        String(Math.max(1, Math.round(next.window))),
        storedRate(next.rate),
        String(next.pauseUntil),
        String(LOCK_MS),
        String(settings.stateTtlMs),
      ],
    );
    if (Number(applied[0]) === -1) this.#again = true; // the state moved under us: read it again
    if (Number(applied[0]) !== 1) return 'lost';
    this.#kept = { version: Number(applied[1]), feedback, drain };
    return Number(applied[2]) > 0 ? 'more' : 'idle';
  }

  /**
   * Sets when to look again: after the time `BATCH` outcomes take at the pace
   * `found` came in since the last look (an empty look leaves it: the next
   * outcomes are looked at as the last ones were).
   */
  #pace(found: number): void {
    const now = this.#clock.now();
    const everyMs = this.#fleet.settings.learnEveryMs;
    const sinceMs = now - (this.#lookedAt ?? now - everyMs);
    this.#lookedAt = now;
    if (found === 0) return;
    const batchMs = (sinceMs * BATCH) / found;
    this.#lookInMs = Math.min(Math.max(everyMs, batchMs), Math.max(everyMs, MAX_LOOK_MS));
  }

  /** Whether the lock is this worker's, as far as it knows (see `#heldUntil`). */
  #holding(): boolean {
    return this.#clock.now() < this.#heldUntil;
  }

  #lookAgain(): void {
    this.#nudged = false; // the look covers what it was told of
    if (this.#stopped) return;
    this.#lookIn(this.#lookInMs);
  }

  /** Looks `ms` from now (instead of any look set before). */
  #lookIn(ms: number): void {
    this.#next?.();
    this.#next = this.#clock.setTimer(ms, () => {
      this.#next = undefined;
      this.#look();
    });
  }
}
