/** Server models: pure descriptions of how servers answer, for the simulator and the mock server. */
export { BlockModel, type BlockOptions } from './block.js';
export { blockPageReply, CAPTCHA_MARKER } from './block-page.js';
export { ByteDripModel, type ByteDripOptions } from './byte-drip.js';
export { createModel, MODEL_NAMES, type ModelParams, parseModelParams } from './catalog.js';
export {
  MODEL_CATALOG,
  type ModelEntry,
  type ModelParam,
  type ModelParamKind,
} from './catalog-entries.js';
export type { ClientRateOptions } from './client-rate.js';
export { combine } from './combine.js';
export { ConcurrencyCapModel, type ConcurrencyCapOptions } from './concurrency-cap.js';
export { EscalationModel, type EscalationOptions } from './escalation.js';
export { FixedWindowModel, type FixedWindowOptions } from './fixed-window.js';
export { HealthyModel, type HealthyOptions } from './healthy.js';
export type { LatencyOptions } from './latency.js';
export type { LimitOptions } from './limit-options.js';
export type { ModelReply, ModelRequest, ServerModel } from './model.js';
export { PacingRampModel, type PacingRampOptions } from './pacing-ramp.js';
export { QueueTimeoutModel, type QueueTimeoutOptions } from './queue-timeout.js';
export { type QuotaHeaderFamily, QuotaModel, type QuotaOptions, type ResetForm } from './quota.js';
export { parseRateInput, type RateInput, RateSchedule, type RateStep } from './rate-schedule.js';
export { isRejection, type ReplyParts, sizedReply, textReply } from './reply.js';
export {
  httpDate,
  RETRY_AFTER_FORMS,
  type RetryAfterForm,
  retryAfterHeaders,
} from './retry-after.js';
export { LIMIT_SCOPES, type LimitScope } from './scoped-state.js';
export { SlidingLogModel, type SlidingLogOptions } from './sliding-log.js';
export { TarpitModel, type TarpitOptions } from './tarpit.js';
export { TokenBucketModel, type TokenBucketOptions } from './token-bucket.js';
