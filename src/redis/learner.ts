import type { CancelTimer, Clock } from '../clock.js';
import type { ScopeFactory } from '../controller/registry.js';
import type { ScopeFeedback } from '../controller/scope-feedback.js';
import { storedRate } from './fleet-view.js';
import type { ScopeKeys } from './keys.js';
import { judging, learnWith, parseOutcomes, resume } from './learn-step.js';
import { learnApplyScript, learnReadScript } from './lua/learn.js';
import type { RedisFleet } from './redis-fleet.js';
import { LOCK_MS } from './scope-calls.js';

/** Outcomes learned from in one step at most. */
const MAX_BATCH = 1000;
/** Looks that found nothing queued before the learner lets the lock go. */
const IDLE_LOOKS = 8;
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
 * lock: read the queued outcomes with the state they apply to, compute the
 * new state with the scope's algorithms ({@link learnFrom}), write it back
 * if nobody changed it meanwhile, then look again after `learnEveryMs` (or
 * later on a slow scope, see `BATCH`). The
 * lock stays with this worker while it keeps looking (outcomes are learned in
 * batches, and by algorithms that carry on between steps); after
 * `IDLE_LOOKS` looks at an empty queue it lets the lock go.
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
  /** Whether this worker holds the scope's learning lock, as far as it knows. */
  #holds = false;
  #again = false;
  #next: CancelTimer | undefined;
  #stopped = false;
  #idleLooks = 0;
  /** Local ms of the last look, and how long until the next. */
  #lookedAt: number | undefined;
  #lookInMs = 0;
  /** The algorithms (judging as a local controller would) of this worker's last write, and the version it wrote. */
  #kept: { version: number; feedback: ScopeFeedback } | undefined;

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
  }

  /** Learns now (this worker was just handed the lock), or right after the step under way. */
  learn(): void {
    if (this.#stopped) return;
    this.#holds = true;
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
   * This worker just queued outcomes (a share's renewal brought them): if it
   * holds the lock, they are learned now, not at its next look — the fleet's
   * numbers then follow the outcomes by one renewal, not by a renewal and a look.
   */
  queued(): void {
    if (this.#holds && !this.#stopped) this.learn();
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
    await this.#stepping;
    if (this.#holds && this.#fleet.shared) await this.#step().catch(() => undefined);
  }

  async #steps(): Promise<void> {
    do {
      this.#again = false;
      this.#holds = await this.#step();
      if (this.#holds) this.#lookAgain();
    } while (this.#again && !this.#stopped);
  }

  /** One read-compute-write; true while this worker holds the lock (look again). */
  async #step(): Promise<boolean> {
    const { settings } = this.#fleet;
    const k = this.#keys;
    const read = await this.#fleet.run(
      learnReadScript,
      [k.state, k.samples, k.learner],
      [
        settings.workerId,
        String(LOCK_MS),
        String(MAX_BATCH),
        this.#idleLooks >= IDLE_LOOKS ? '1' : '0',
      ],
    );
    this.#pace(Number(read[0]) === 1 ? (read[4] as unknown[]).length : 0);
    if (Number(read[0]) === 2) this.#idleLooks++;
    if (Number(read[0]) !== 1) {
      if (Number(read[0]) === 0) this.#idleLooks = 0;
      return Number(read[0]) === 2;
    }
    this.#idleLooks = 0;
    const raw = read[4] as unknown[];
    const version = Number(read[2]);
    // Our own algorithms when the state is still the one we wrote; else resumed from Redis.
    const redisNow = Number(read[1]);
    const feedback =
      this.#kept?.version === version
        ? this.#kept.feedback
        : judging(resume(this.#setup, this.#scope, String(read[3] ?? ''), redisNow), redisNow);
    this.#kept = undefined;
    const next = learnWith(feedback, parseOutcomes(raw));
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
    if (Number(applied[0]) !== 1) return false;
    this.#kept = { version: Number(applied[1]), feedback };
    return true;
  }

  /** Sets when to look again: after the time `BATCH` outcomes take at the pace `found` came in. */
  #pace(found: number): void {
    const now = this.#clock.now();
    const everyMs = this.#fleet.settings.learnEveryMs;
    const sinceMs = now - (this.#lookedAt ?? now - everyMs);
    this.#lookedAt = now;
    const batchMs = (sinceMs * BATCH) / Math.max(1, found);
    this.#lookInMs = Math.min(Math.max(everyMs, batchMs), Math.max(everyMs, MAX_LOOK_MS));
  }

  #lookAgain(): void {
    if (this.#stopped) return;
    this.#next?.();
    this.#next = this.#clock.setTimer(this.#lookInMs, () => {
      this.#next = undefined;
      this.learn();
    });
  }
}
