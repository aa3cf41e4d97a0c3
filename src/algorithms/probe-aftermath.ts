/**
 * A refusal at a held rate above what was held before a probe, this soon
 * after the probe's refusal (or within this many meter windows), is the
 * probe's aftermath — its reading was too high — and part of its cost; a
 * later one, or one at the rate held before, is the server's doing (a
 * capacity that fell).
 */
const AFTERMATH = { ms: 10_000, windows: 3 } as const;

/**
 * A probe's refusal read from fewer sends a meter window than this is too coarse to return to
 * (a slow scope's reading needs its recount).
 */
const READ_SENDS = 20;

/** A pause asked again the same, at least this long, ms, is taken for a constant one. */
export const CONSTANT_PAUSE_MS = 2000;

/** A refusal at a held rate, as far as a probe's aftermath is concerned. */
export interface HeldRefusal {
  at: number;
  /** The learned rate that was refused. */
  current: number;
  /** The rate meter's window, ms. */
  windowMs: number;
  /** The pause the refusal asked for (its Retry-After), ms, if it named one. */
  retryAfterMs?: number | undefined;
  /** A refused probe's: the ceiling its refusal set, what it read before its recount. */
  read?: number;
}

/** Whether `refusal`, at a rate above `heldBefore`, comes within the aftermath of a probe refused at `probeAt`. */
export function inAftermath(refusal: HeldRefusal, probeAt: number, heldBefore: number): boolean {
  if (refusal.current <= heldBefore) return false;
  const spanMs = Math.max(AFTERMATH.ms, AFTERMATH.windows * refusal.windowMs);
  return refusal.at - probeAt <= spanMs;
}

/**
 * The last refused probe: when, the rate held before it, what its refusal
 * read, and the pause it asked for (not saved: it matters for seconds).
 */
export class RefusedProbeMemory {
  #last: { at: number; heldBefore: number; read: number; retryAfterMs?: number } | undefined;
  /** When the refused probe whose reading a held refusal last refuted was refused, ms. */
  #refutedFor = Number.NaN;

  /** When the last refused probe was refused, ms; `NaN` before the first. */
  get at(): number {
    return this.#last?.at ?? Number.NaN;
  }

  /** Remembers a probe refused by `refusal`, which held `heldBefore` before it. */
  remember(refusal: HeldRefusal, heldBefore: number): void {
    const { at, read = heldBefore, retryAfterMs } = refusal;
    this.#last = { at, heldBefore, read, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  }

  /** Whether `refusal`, at a held rate, comes in the last refused probe's aftermath ({@link inAftermath}). */
  aftermathOf(refusal: HeldRefusal): boolean {
    const last = this.#last;
    return last !== undefined && inAftermath(refusal, last.at, last.heldBefore);
  }

  /**
   * Whether `refusal`, at a held rate, is the first in the last refused
   * probe's aftermath ({@link RefusedProbeMemory.aftermathOf}): the first
   * refusal of the rate that probe's reading set. Once per refused probe; the
   * later ones walk down from a rate that refusal set, not the reading.
   */
  firstInAftermath(refusal: HeldRefusal): boolean {
    if (!this.aftermathOf(refusal) || this.#refutedFor === this.at) return false;
    this.#refutedFor = this.at;
    return true;
  }

  /**
   * The ceiling to return to when `refusal` (at a held rate) is the last
   * refused probe's aftermath asking for the same constant pause (see
   * {@link RefusedProbeMemory.heldBefore}): what the probe's own refusal read,
   * if below the rate refused now — the recount after its pause over-read, a
   * window's grant or a bucket's burst counted on top of the rate — and read
   * from {@link READ_SENDS} sends a window or more, or, if higher, half way
   * between the rate held before the probe and the rate refused. Undefined
   * otherwise.
   */
  returnTo(refusal: HeldRefusal): number | undefined {
    const heldBefore = this.heldBefore(refusal);
    if (heldBefore === undefined) return undefined;
    const read = this.#last?.read ?? 0;
    const fine = (read * refusal.windowMs) / 1000 >= READ_SENDS;
    return Math.max((heldBefore + refusal.current) / 2, fine && read < refusal.current ? read : 0);
  }

  /**
   * The rate held before the last refused probe, when `refusal` (at a held
   * rate) is that probe's aftermath and asks for the same pause of
   * {@link CONSTANT_PAUSE_MS} or more as the probe's refusal did: the
   * server's pause is then a constant, not the time until it grants again,
   * so what was granted since the pause, counted per the pause, says too
   * little. Undefined otherwise.
   */
  heldBefore(refusal: HeldRefusal): number | undefined {
    const last = this.#last;
    if (last === undefined || !this.aftermathOf(refusal)) return undefined;
    const pauseMs = refusal.retryAfterMs;
    if (pauseMs === undefined || pauseMs < CONSTANT_PAUSE_MS || pauseMs !== last.retryAfterMs) {
      return undefined;
    }
    return last.heldBefore;
  }
}
