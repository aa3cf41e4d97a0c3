import { given, number, type SettingsOf } from '../../option-spec.js';
import { type Latency, type LatencyOptions, latencyOf, latencySpec } from './latency.js';
import { LIMIT_SPEC, type LimitOptions } from './limit-options.js';
import { type RateInput, RateSchedule } from './rate-schedule.js';
import type { RetryAfterForm } from './retry-after.js';
import type { LimitScope } from './scoped-state.js';

/** Options of the window models (fixed window, sliding log). Latency defaults to 350 ms. */
export interface WindowOptions extends LimitOptions, LatencyOptions {
  /**
   * Capacity in requests/s, constant or on a schedule: each `windowMs` window
   * admits `floor(rate × windowMs / 1000)` requests.
   * @default 30
   */
  rate?: RateInput;
  /**
   * Window length, ms.
   * @default 1000
   */
  windowMs?: number;
}

/** The rules of {@link WindowOptions}; {@link windowSettings} makes the rate a schedule. */
export const WINDOW_SPEC = {
  rate: given<RateInput>(),
  windowMs: number(1000, { min: 1 }),
  ...LIMIT_SPEC,
  ...latencySpec(350),
};

/** Validated {@link WindowOptions}. */
export interface WindowSettings {
  rate: RateSchedule;
  windowMs: number;
  retryAfter: RetryAfterForm;
  scope: LimitScope;
  latency: Latency;
}

/** The settings of a window model, read by a reader built on {@link WINDOW_SPEC}. */
export function windowSettings(
  owner: string,
  settings: SettingsOf<typeof WINDOW_SPEC>,
): WindowSettings {
  const rate = RateSchedule.from(owner, 'rate', settings.rate, 30);
  rate.requireOnePerWindow(owner, settings.windowMs);
  const { windowMs, retryAfter, scope } = settings;
  return { rate, windowMs, retryAfter, scope, latency: latencyOf(settings) };
}
