/**
 * ratewise: closed-loop rate control for programs that call other people's
 * HTTP servers. Every response is a measurement; one controller per
 * rate-limit scope keeps the scope at the highest rate it tolerates.
 *
 * @packageDocumentation
 */

// Algorithms
export { AdaptiveRate } from './algorithms/adaptive-rate.js';
export type { AdaptiveRateOptions } from './algorithms/adaptive-rate-options.js';
export type { AdaptiveRateState } from './algorithms/adaptive-rate-state.js';
export { AimdLimit, type AimdOptions, type AimdState } from './algorithms/aimd.js';
export {
  type BreakerOptions,
  type BreakerOutcome,
  BreakerPolicy,
  type BreakerSnapshot,
} from './algorithms/breaker-policy.js';
export { GradientLimit, type GradientOptions, type GradientState } from './algorithms/gradient.js';
export type { AlarmAction, ConcurrencyLimit, RatePolicy, Sample } from './algorithms/sample.js';
export { formatAnalysis } from './analyze/format-analysis.js';
export type { LogAnalysis } from './analyze/log-analysis.js';
export { analyzeLines, LogAnalyzer, type LogAnalyzerOptions } from './analyze/log-analyzer.js';
export { analyzeLog, readLogLines } from './analyze/read-log.js';
export { TooManyWindowsError } from './analyze/windows.js';
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
export {
  type AttemptContext,
  type AttemptOutcome,
  type AttemptSpec,
  runAttempts,
} from './client/attempts.js';
export { createClient, type RatewiseClient } from './client/client.js';
export { FetchFailedError, RedirectError, ResponseTooLargeError } from './client/client-errors.js';
export {
  type RatewiseDispatchOptions,
  type RatewiseInterceptor,
  ratewiseInterceptor,
} from './client/interceptor.js';
export type { ClientOptions, ControlledOptions } from './client/options.js';
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
export { CompositePermit } from './controller/composite-permit.js';
export { type ControlOptions, controlSetup } from './controller/defaults.js';
export { LatencyGuard, type LatencyGuardOptions } from './controller/latency-guard.js';
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
// Crawling, analysis and reports
export type { CrawlOptions } from './crawl/crawl-options.js';
export type { CrawlProgress } from './crawl/crawl-progress.js';
export type { CrawlResult } from './crawl/crawl-result.js';
export type { CrawlSummary } from './crawl/crawl-tally.js';
export { runCrawl } from './crawl/run-crawl.js';
export { type LatencyBaseline, parseBaseline } from './detect/baseline-file.js';
// Soft-throttling detectors
export { type BimodalResult, detectBimodal } from './detect/bimodal.js';
export { BaselineCapture, checkAgainstBaseline } from './detect/latency-baseline.js';
export { LatencyMonitor, type LatencyMonitorOptions } from './detect/latency-monitor.js';
export {
  diagnosePhases,
  type PhaseDiagnosis,
  type PhaseVerdict,
} from './detect/phase-diagnosis.js';
export { detectRamp, type RampResult } from './detect/ramp.js';
export { type SelfCheckResult, selfCheck } from './detect/self-check.js';
export { ThroughputDecayDetector, type ThroughputDecayOptions } from './detect/throughput-decay.js';
// Enforcement
export { BreakerGate, type BreakerListener, type Pass } from './enforce/breaker-gate.js';
export { Pacer, type PacerOptions } from './enforce/pacer.js';
export { Semaphore } from './enforce/semaphore.js';
export type { WaitOptions } from './enforce/wait-queue.js';
// Errors and options
export {
  AdmissionTimeoutError,
  InvalidOptionError,
  RatewiseError,
  RetryAfterTooLongError,
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
export { type Random, seededRandom, systemRandom, uniform } from './random.js';
export { type WriteReportOptions, type WrittenReport, writeReport } from './report/write-report.js';
export { REACTIONS, type Reaction, type Signal, type SignalKind } from './signal.js';
// Simulation
export { type BenchOptions, type BenchRow, runBench } from './sim/bench.js';
export {
  createModel,
  MODEL_NAMES,
  type ModelReply,
  type ModelRequest,
  type ServerModel,
} from './sim/models/index.js';
export { SCENARIOS, type Scenario } from './sim/scenarios.js';
export { type RunResult, type SimulateOptions, simulate } from './sim/simulate.js';
export { STRATEGIES, type Strategy, type StrategyContext } from './sim/strategies/index.js';
export type { RunSummary } from './sim/summary.js';
// Shared state
export type { Fleet } from './store/fleet.js';
export { MemoryStore, type MemoryStoreOptions } from './store/memory-store.js';
export type { ScopeState, StateStore } from './store/store.js';
export type { PhaseTimings } from './timings.js';
export { settle, VirtualClock, type VirtualClockOptions } from './virtual-clock.js';
