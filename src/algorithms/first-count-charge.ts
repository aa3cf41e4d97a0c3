/**
 * The most pause a first count is billed to the probe budget as, ms (see
 * {@link firstCountCharge}): one second, about 20 s of the budget's earning at
 * its default 5 % of the time paused.
 */
const FIRST_COUNT_CHARGE_MS = 1000;

/** A first count of fewer accepted sends than this is billed its refusal's whole pause. */
const FIRST_COUNT_FEW_SENDS = 20;

/**
 * The pause, ms, a first ceiling counted over its whole span (`sends` accepted
 * sends) is billed to the probe budget as, its refusal having asked `askedMs`:
 * that pause, but at most {@link FIRST_COUNT_CHARGE_MS} where it counted
 * {@link FIRST_COUNT_FEW_SENDS} sends or more. A fast cold start's count is of
 * what its slow start sent, not of a probe's climb: a bucket or GCRA of a
 * small burst, refused for a round trip's sends at once (a burst, not a
 * rate), grants the slow start's whole second, a quarter or a third of its
 * capacity. Billed a constant `Retry-After` of 3–5 s in full, the next probe
 * waits for a minute or more of earning (3 s: about 80 s) at that count;
 * billed a second, it comes within half a minute, and a count that was right
 * costs one pause more. A slow scope's few sends are a limit's grant (a
 * window of a few requests), and a probe there gains a few requests for the
 * same pause: billed in full.
 */
export function firstCountCharge(askedMs: number, sends: number): number {
  return sends < FIRST_COUNT_FEW_SENDS ? askedMs : Math.min(askedMs, FIRST_COUNT_CHARGE_MS);
}
