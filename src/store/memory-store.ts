import { systemClock } from '../clock.js';
import { given, number } from '../option-rules.js';
import { defineOptions, type OptionsOf } from '../option-spec.js';
import type { ScopeState, StateStore } from './store.js';

const readOptions = defineOptions('MemoryStore', {
  /**
   * Most scopes whose state is kept; saving one more forgets the least
   * recently used. About 1 KB each.
   * @default 10000
   */
  maxEntries: number(10_000, { min: 1, integer: true, infinite: true }),
  /**
   * A state neither saved nor loaded for this long is forgotten, ms: what a
   * scope learned an hour ago says little about the server today.
   * @default 3600000 (1 hour)
   */
  ttlMs: number(3_600_000, { min: 0, infinite: true }),
  /** Time source for `ttlMs`. @default systemClock */
  clock: given(systemClock),
});

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions extends OptionsOf<typeof readOptions> {}

interface Entry {
  text: string;
  /** When the state was last saved or loaded (monotonic ms). */
  usedAt: number;
}

/**
 * The default {@link StateStore}: a map in this process, bounded so that a
 * crawl across millions of hosts does not keep every one it ever evicted —
 * at most `maxEntries` states (least recently used go first), none older than
 * `ttlMs`. States are copied through JSON on the way in and out, as a
 * networked store would, so callers cannot share mutable objects by accident.
 */
export class MemoryStore implements StateStore {
  /** In order of last use, oldest first. */
  readonly #states = new Map<string, Entry>();
  readonly #settings: ReturnType<typeof readOptions>;

  constructor(options: MemoryStoreOptions = {}) {
    this.#settings = readOptions(options);
  }

  /** Number of scopes with saved state. */
  get size(): number {
    return this.#states.size;
  }

  async load(scope: string): Promise<ScopeState | undefined> {
    const now = this.#settings.clock.now();
    this.#forgetExpired(now);
    const entry = this.#states.get(scope);
    if (entry === undefined) return undefined;
    this.#use(scope, entry, now);
    return JSON.parse(entry.text) as ScopeState;
  }

  async save(scope: string, state: ScopeState): Promise<void> {
    const now = this.#settings.clock.now();
    this.#forgetExpired(now);
    this.#use(scope, { text: JSON.stringify(state), usedAt: now }, now);
    for (const oldest of this.#states.keys()) {
      if (this.#states.size <= this.#settings.maxEntries) break;
      this.#states.delete(oldest);
    }
  }

  /** Moves `scope` to the newest end. */
  #use(scope: string, entry: Entry, now: number): void {
    entry.usedAt = now;
    this.#states.delete(scope);
    this.#states.set(scope, entry);
  }

  /** Drops states unused for `ttlMs`: they are the oldest, at the front. */
  #forgetExpired(now: number): void {
    for (const [scope, entry] of this.#states) {
      if (now - entry.usedAt < this.#settings.ttlMs) return;
      this.#states.delete(scope);
    }
  }
}
