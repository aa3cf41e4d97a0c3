import type { AdaptiveRateSettings } from './adaptive-rate-options.js';
import { AlarmCuts } from './alarm-cuts.js';
import type { CutParts } from './ceiling-cut.js';
import { CeilingRecounts } from './ceiling-recounts.js';
import { Prober } from './prober.js';
import type { QuotaPace } from './quota-pace.js';
import { freshDecisions, type RateDecisions } from './rate-decisions.js';
import { RateMeter } from './rate-meter.js';

/**
 * Whether the ceiling is a guess, and if so how the probe that checks it climbs
 * and is read: `burstless`, a gentle guess from a limit that granted no more
 * than {@link BURSTLESS} sends before refusing, is also read by the spacing of
 * its accepted sends (see `SpacingTrial`); `bound`, a lower bound read from
 * what the unpaced slow start sent, climbs as a gentle guess does (see
 * `cutOnRefusal`).
 */
export type CeilingGuess = 'none' | 'gentle' | 'burstless' | 'steep' | 'bound';

/** A limit that granted no more sends than this before its first refusal has no burst to speak of. */
const BURSTLESS = 2;

/** A gentle guess read at `at`: `burstless` when the `meter` holds no more than {@link BURSTLESS} accepted sends. */
export function gentleGuess(meter: RateMeter, at: number): CeilingGuess {
  const accepted = meter.acceptedSentIn(-Infinity, at)?.count ?? 0;
  return accepted <= BURSTLESS ? 'burstless' : 'gentle';
}

/**
 * What an adaptive rate learns from traffic: its decisions and the parts that
 * cuts and snapshots read and move. An adaptive rate creates them with its
 * first sample (or alarm, snapshot, restore), and the recounts and the alarm
 * cuts are created at their first use (a cut, an alarm, a restore): most
 * scopes are never refused, many never send, and a hundred thousand of them
 * should stay cheap.
 */
export class RateParts implements CutParts {
  readonly settings: AdaptiveRateSettings;
  readonly meter: RateMeter;
  readonly prober: Prober;
  /** Nothing decided yet: unpaced. */
  readonly decisions: RateDecisions;
  /** Time of the latest sample. */
  now = -Infinity;
  /** Created with the first published quota. */
  quota: QuotaPace | undefined;
  /**
   * Whether the ceiling is a guess, read from nothing (refused before
   * anything was measured: as many per second as were in flight) or from what
   * was sent unpaced (a lower bound, `bound`: see `cutOnRefusal`), until a cut
   * or a count that does not raise it measures the capacity; its probe's
   * refusal is judged by its last second (see `refusedProbeSpan`). Its probe
   * climbs more steeply than a measured ceiling's, from three or more in
   * flight as steeply as a slow start (see `learnedRate`). Not saved: it
   * matters for seconds.
   */
  guess: CeilingGuess = 'none';
  #recounts: CeilingRecounts | undefined;
  #alarm: AlarmCuts | undefined;

  constructor(settings: AdaptiveRateSettings) {
    this.settings = settings;
    this.meter = new RateMeter(settings.windowMs);
    this.prober = new Prober(settings);
    this.decisions = freshDecisions(settings.margin);
  }

  /** The recounts of cut ceilings, created at first use. */
  get recounts(): CeilingRecounts {
    this.#recounts ??= new CeilingRecounts();
    return this.#recounts;
  }

  /** The recounts, if a cut or a restore created them (none can be pending otherwise). */
  get recountsIfAny(): CeilingRecounts | undefined {
    return this.#recounts;
  }

  /** The latency alarms' cuts, created at first use. */
  get alarm(): AlarmCuts {
    this.#alarm ??= new AlarmCuts();
    return this.#alarm;
  }

  /** The alarm cuts, if an alarm or a cut created them. */
  get alarmIfAny(): AlarmCuts | undefined {
    return this.#alarm;
  }
}
