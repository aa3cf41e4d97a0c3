import { numberOption, rejectUnknownOptions } from '../../options.js';
import { LATENCY_OPTION_NAMES, type Latency, type LatencyOptions, readLatency } from './latency.js';
import {
  LIMIT_OPTION_NAMES,
  type LimitOptions,
  type Limits,
  readLimitOptions,
} from './limit-options.js';
import { type RateInput, RateSchedule } from './rate-schedule.js';

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

/** Option names of {@link WindowOptions}, for `rejectUnknownOptions`. */
export const WINDOW_OPTION_NAMES = [
  'rate',
  'windowMs',
  ...LIMIT_OPTION_NAMES,
  ...LATENCY_OPTION_NAMES,
];

/** Validated {@link WindowOptions}. */
export interface WindowSettings extends Limits {
  rate: RateSchedule;
  windowMs: number;
  latency: Latency;
}

/** Validates a window model's options under `owner`, applying the defaults. */
export function readWindowOptions(owner: string, options: WindowOptions): WindowSettings {
  rejectUnknownOptions(owner, options, WINDOW_OPTION_NAMES);
  const rate = RateSchedule.from(owner, 'rate', options.rate, 30);
  const windowMs = numberOption(owner, 'windowMs', options.windowMs, 1000, { min: 1 });
  rate.requireOnePerWindow(owner, windowMs);
  return {
    rate,
    windowMs,
    ...readLimitOptions(owner, options),
    latency: readLatency(owner, options, 350),
  };
}
