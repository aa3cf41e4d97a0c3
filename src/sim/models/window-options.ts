import { given, number } from '../../option-rules.js';
import type { OptionsOf, SettingsOf } from '../../option-spec.js';
import { latencySpec } from './latency.js';
import { LIMIT_SPEC } from './limit-options.js';
import { type RateInput, type Scheduled, withRateSchedule } from './rate-schedule.js';

/** The rules of {@link WindowOptions}; {@link windowSettings} makes the rate a schedule. */
export const WINDOW_SPEC = {
  /**
   * Capacity in requests/s, constant or on a schedule: each `windowMs` window
   * admits `floor(rate × windowMs / 1000)` requests.
   * @default 30
   */
  rate: given<RateInput>(),
  /**
   * Window length, ms.
   * @default 1000
   */
  windowMs: number(1000, { min: 1 }),
  ...LIMIT_SPEC,
  ...latencySpec(350),
};

/** Options of the window models (fixed window, sliding log). Latency defaults to 350 ms. */
export interface WindowOptions extends OptionsOf<typeof WINDOW_SPEC> {}

/**
 * The settings of a window model, read by a reader built on {@link WINDOW_SPEC}:
 * the rate a schedule that admits at least one request per window.
 */
export function windowSettings<S extends SettingsOf<typeof WINDOW_SPEC>>(
  owner: string,
  settings: S,
): Scheduled<S> {
  const scheduled = withRateSchedule(owner, settings);
  scheduled.rate.requireOnePerWindow(owner, settings.windowMs);
  return scheduled;
}
