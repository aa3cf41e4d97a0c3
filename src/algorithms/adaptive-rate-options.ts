import { InvalidOptionError } from '../errors.js';
import { type NumberRule, numberOption, rejectUnknownOptions, sharedSettings } from '../options.js';

/** Options of {@link AdaptiveRate}. */
export interface AdaptiveRateOptions {
  /**
   * A first rate to pace at, in requests/s, from which the rate probes upward
   * until the first throttling. Not a cap (see `documentedRate`).
   * @default Infinity (unpaced: the concurrency limit governs until the first throttling)
   */
  startRate?: number;
  /**
   * The rate the server documents, in requests/s (60 per minute → 1). The rate
   * never exceeds it, whatever is learned.
   * @default Infinity (none)
   */
  documentedRate?: number;
  /** The learned rate never falls below this, in requests/s. @default 0.1 */
  minRate?: number;
  /**
   * Factor applied to the learned ceiling on throttling (`cut`), once per
   * congestion event; a ceiling not yet confirmed by a second probe gets it
   * twice (0.95² ≈ 0.9). The ceiling is the rate the server accepted just
   * before refusing, so it already is the server's capacity: the cut only has
   * to clear measurement noise and window phase (a fixed window paced at
   * exactly its capacity admits one too many every other window). TCP cuts
   * deeper (0.5; CUBIC 0.7) because it only knows the window that failed.
   * Measured against a 30 req/s fixed window, 0.95 beats 0.9 (a deeper dip)
   * and 0.97 (more repeated failures after a noisy ceiling).
   * @default 0.95
   */
  backoffRatio?: number;
  /** Factor applied to the ceiling on overload (`cut-hard`, 503 and friends). @default 0.7 */
  overloadRatio?: number;
  /** Milliseconds after an overload before the rate starts climbing again. @default 5000 */
  overloadHoldMs?: number;
  /**
   * Span over which the accepted and sent rates are averaged, ms: older
   * outcomes fade with a time constant of half of it (as noisy, and as
   * late, as a plain average over the span). A pause counts as over once two
   * spans have passed.
   * @default 2000
   */
  windowMs?: number;
  /**
   * Time from a cut back to the ceiling (the plateau), ms, while the ceiling is
   * new or has just moved: it is probed again this soon. Each probe that finds
   * the same ceiling again (within 5 %) doubles the plateau. Against a fixed
   * window each probe costs about one Retry-After pause, so this sets how much
   * of a fresh ceiling's first minutes goes to checking it: measured on a
   * 30 req/s window, 25 s keeps a 25 s crawl to one learning pause where 10 s
   * added a probe, and finds a capacity that came back as fast overall (fewer
   * failed probes while it is down). A cut that brought no pause (a timeout,
   * a 503 without Retry-After) costs nothing to probe again and gets at most
   * 10 s.
   * @default 25000
   */
  minProbeIntervalMs?: number;
  /**
   * Longest plateau, ms: at steady state the rate probes above a confirmed
   * ceiling about once per this interval. Each probe against a fixed window
   * costs one rejection and its Retry-After pause (about 1/interval of the
   * capacity), while a capacity increase is only found at the next probe —
   * the trade-off this sets (a ceiling that fell is probed at the shortest
   * interval regardless, to find the capacity coming back).
   * @default 60000
   */
  maxProbeIntervalMs?: number;
  /** Time past the plateau for the probing rate to double, ms. @default 5000 */
  probeDoublingMs?: number;
  /**
   * Shortest pause on a Retry-After, ms. `Retry-After: 0` means "stop now, ask
   * again later", not "go on".
   * @default 500
   */
  minPauseMs?: number;
  /** Fraction of a published `remaining` quota kept in reserve when spreading it. @default 0.05 */
  quotaMargin?: number;
}

/** Validated {@link AdaptiveRateOptions}, every default applied. */
export type AdaptiveRateSettings = Required<AdaptiveRateOptions>;

const OWNER = 'AdaptiveRate';
const KNOWN = [
  'startRate',
  'documentedRate',
  'minRate',
  'backoffRatio',
  'overloadRatio',
  'overloadHoldMs',
  'windowMs',
  'minProbeIntervalMs',
  'maxProbeIntervalMs',
  'probeDoublingMs',
  'minPauseMs',
  'quotaMargin',
];
const POSITIVE: NumberRule = { min: Number.MIN_VALUE };
const RATIO: NumberRule = { min: 0.01, max: 1 };

/**
 * Validates options, naming the option, the value and the expectation on
 * error. An options object is read once: the frozen settings are shared by
 * every instance built from it.
 */
export const adaptiveRateSettings = sharedSettings(
  (options: AdaptiveRateOptions): AdaptiveRateSettings => {
    rejectUnknownOptions(OWNER, options, KNOWN);
    const n = (name: keyof AdaptiveRateOptions, fallback: number, rule: NumberRule) =>
      numberOption(OWNER, name, options[name], fallback, rule);
    const settings: AdaptiveRateSettings = {
      startRate: n('startRate', Infinity, { ...POSITIVE, infinite: true }),
      documentedRate: n('documentedRate', Infinity, { ...POSITIVE, infinite: true }),
      minRate: n('minRate', 0.1, POSITIVE),
      backoffRatio: n('backoffRatio', 0.95, RATIO),
      overloadRatio: n('overloadRatio', 0.7, RATIO),
      overloadHoldMs: n('overloadHoldMs', 5000, { min: 0 }),
      windowMs: n('windowMs', 2000, { min: 100 }),
      minProbeIntervalMs: n('minProbeIntervalMs', 25_000, { min: 0 }),
      maxProbeIntervalMs: n('maxProbeIntervalMs', 60_000, { min: 0 }),
      probeDoublingMs: n('probeDoublingMs', 5000, { min: 1 }),
      minPauseMs: n('minPauseMs', 500, { min: 0 }),
      quotaMargin: n('quotaMargin', 0.05, { min: 0, max: 0.5 }),
    };
    if (settings.maxProbeIntervalMs < settings.minProbeIntervalMs) {
      throw InvalidOptionError.invalid(
        OWNER,
        'maxProbeIntervalMs',
        settings.maxProbeIntervalMs,
        `>= minProbeIntervalMs (${settings.minProbeIntervalMs})`,
      );
    }
    return Object.freeze(settings);
  },
);
