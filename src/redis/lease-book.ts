import type { CancelTimer, Clock } from '../clock.js';

/**
 * The leases one worker holds in one scope, renewed while their requests run:
 * every renewal period, leases older than a period are pushed forward
 * together in one call. A worker that stops renewing (killed) loses them when
 * they expire.
 */
export class LeaseBook {
  /** Lease id → local ms it was granted or last renewed. */
  readonly #held = new Map<string, number>();
  readonly #clock: Clock;
  readonly #periodMs: number;
  readonly #renew: (leaseIds: string[]) => Promise<unknown>;
  #timer: CancelTimer | undefined;

  /** `renew` pushes the given leases' expiry forward (one round trip). */
  constructor(clock: Clock, periodMs: number, renew: (leaseIds: string[]) => Promise<unknown>) {
    this.#clock = clock;
    this.#periodMs = periodMs;
    this.#renew = renew;
  }

  /** Leases held. */
  get size(): number {
    return this.#held.size;
  }

  add(leaseId: string): void {
    this.#held.set(leaseId, this.#clock.now());
    this.#timer ??= this.#clock.setTimer(this.#periodMs, () => this.#tick());
  }

  /** Forgets `leaseId`; returns whether it was held. */
  delete(leaseId: string): boolean {
    const held = this.#held.delete(leaseId);
    if (this.#held.size === 0) this.stop();
    return held;
  }

  /** Stops renewing (the leases expire on their own). */
  stop(): void {
    this.#timer?.();
    this.#timer = undefined;
  }

  #tick(): void {
    this.#timer = undefined;
    const now = this.#clock.now();
    const due = [...this.#held].filter(([, at]) => now - at >= this.#periodMs).map(([id]) => id);
    for (const id of due) this.#held.set(id, now);
    if (due.length > 0) this.#renew(due).catch(() => undefined); // a failure switches the fleet to local
    if (this.#held.size > 0) this.#timer = this.#clock.setTimer(this.#periodMs, () => this.#tick());
  }
}
