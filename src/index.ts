/**
 * `ratewise`: closed-loop rate control for programs that call other people's
 * HTTP servers. Every response is a measurement; one controller per
 * rate-limit scope keeps the scope at the highest rate it tolerates.
 *
 * This entry is for users of the controller: the client and the undici
 * interceptor, the scope controller and registry, the algorithms, the
 * classifier, the header parsers, backoff, errors and event sinks. The crawl
 * engine, the simulator, log analysis and the test servers have entries of
 * their own (`ratewise/crawl`, `ratewise/sim`, `ratewise/analyze`,
 * `ratewise/testing`).
 *
 * @packageDocumentation
 */

// Algorithms
export { AdaptiveRate } from './algorithms/adaptive-rate.js';
export type { AdaptiveRateOptions } from './algorithms/adaptive-rate-options.js';
export type {
  AdaptiveRateState,
  RateDecisionState,
} from './algorithms/adaptive-rate-state.js';
export { AimdLimit, type AimdState } from './algorithms/aimd.js';
export type { AimdOptions } from './algorithms/aimd-options.js';
export type { BoundRoundsState } from './algorithms/bound-rounds.js';
export {
  type BreakerOptions,
  type BreakerOutcome,
  BreakerPolicy,
  type BreakerSnapshot,
} from './algorithms/breaker-policy.js';
export type { ClockReading } from './algorithms/clock-reading.js';
export type { ConcurrencyCeilingState } from './algorithms/concurrency-ceiling.js';
export { GradientLimit, type GradientOptions, type GradientState } from './algorithms/gradient.js';
export type { ProbeBudgetState } from './algorithms/probe-budget.js';
export type { QuotaPaceState } from './algorithms/quota-pace.js';
export type { RateMeterState } from './algorithms/rate-meter-state.js';
export type { AlarmAction, ConcurrencyLimit, RatePolicy, Sample } from './algorithms/sample.js';
export type { SlowStartPaceState } from './algorithms/slow-start-pace.js';
export type { MalformedLine } from './analyze/log-analysis.js';
// What an UnusableLogError is built from (also in ratewise/analyze).
export type { LineUse } from './analyze/unusable-log.js';
// Backoff
export type { Backoff, BackoffOptions } from './backoff/backoff.js';
export {
  type DecorrelatedJitterOptions,
  decorrelatedJitter,
} from './backoff/decorrelated-jitter.js';
export { equalJitter } from './backoff/equal-jitter.js';
export { defaultBackoff, fullJitter } from './backoff/full-jitter.js';
export { noJitter } from './backoff/no-jitter.js';
// Classification
export {
  type ClassifyOptions,
  classify,
  DEFAULT_BLOCK_MARKERS,
  isAbort,
  type ResponseLike,
  type SniffedResponse,
  THROTTLE_MARKERS,
} from './classify.js';
// HTTP client
export { createClient, type RatewiseClient } from './client/client.js';
export {
  type RatewiseDispatchOptions,
  type RatewiseInterceptor,
  ratewiseInterceptor,
} from './client/interceptor.js';
export type { ClientOptions, InterceptorOptions } from './client/options.js';
export type { RatewiseRequestInit, RequestControl } from './client/request-input.js';
export { type ResponseInfo, ratewiseInfo, ratewiseTimings } from './client/response-info.js';
export {
  isRetryable,
  type RetryOptions,
  type RetryPolicy,
  retryPolicy,
} from './client/retry-policy.js';
// Time and chance
export { type CancelTimer, type Clock, sleepOn, systemClock } from './clock.js';
// Controllers and scopes
export { type ControlOptions, controlSetup } from './controller/defaults.js';
export type { LatencyGuardOptions } from './controller/latency-guard.js';
export type { OutcomeDetails, Permit } from './controller/permit.js';
export {
  type ScopeFactory,
  ScopeRegistry,
  type ScopeRegistryOptions,
  type ScopeSetup,
} from './controller/registry.js';
export {
  allOf,
  byContext,
  byDomain,
  byHost,
  type ScopeRequest,
  type ScopeResolver,
} from './controller/resolvers.js';
export { RetryBudget, type RetryBudgetOptions } from './controller/retry-budget.js';
export { ScopeController, type ScopeControllerOptions } from './controller/scope-controller.js';
export type { Pass } from './enforce/breaker-gate.js';
export type { WaitOptions } from './enforce/wait-queue.js';
// Errors
export {
  AdmissionTimeoutError,
  ClosedError,
  type ErrorCode,
  type FailedAttempts,
  FetchFailedError,
  InvalidOptionError,
  RatewiseError,
  RedirectError,
  RedisTimeoutError,
  RedisUnreachableError,
  ReleaseError,
  ResponseTooLargeError,
  RetryAfterTooLongError,
  ScopePausedError,
  SinkClosedError,
  TooManyWindowsError,
  UnusableLogError,
  UsageError,
} from './errors.js';
// Events
export type {
  BreakerState,
  ControlEvent,
  ControlEventType,
  EventSink,
} from './events/event.js';
export { type FanoutOptions, fanout } from './events/fanout.js';
export { type BufferedSink, type JsonlSinkOptions, jsonlSink } from './events/jsonl-sink.js';
export { EventRecorder, type EventRecorderOptions } from './events/recorder.js';
export type { RunStart } from './events/run-start.js';
// Server hints
export { type HeadersInput, headerValue } from './headers/header-value.js';
export { parseHttpDate } from './headers/http-date.js';
export type { RateLimitQuota, RateLimitSource } from './headers/quota.js';
export { parseRateLimit, type RateLimitOptions } from './headers/rate-limit.js';
export { parseRetryAfter, type RetryAfterOptions } from './headers/retry-after.js';
// Options: the types an options interface is derived from (`interface XOptions extends OptionsOf<…>`)
export type {
  EarlierSettings,
  OptionRule,
  OptionsOf,
  OptionsReader,
  RuleOptions,
  SettingsOf,
} from './option-spec.js';
export { type Random, seededRandom, systemRandom, uniform } from './random.js';
export { REACTIONS, type Reaction, type Signal, type SignalKind } from './signal.js';
// Shared state
export type { Fleet } from './store/fleet.js';
export { MemoryStore, type MemoryStoreOptions } from './store/memory-store.js';
export type { ScopeState, StateStore } from './store/store.js';
export type { PhaseTimings } from './timings.js';
