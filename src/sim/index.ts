/**
 * `ratewise/sim`: the deterministic virtual-time simulator — server models,
 * scenarios, the strategies ratewise is compared with, and the bench that
 * runs them side by side.
 *
 * @packageDocumentation
 */
export { type BenchOptions, type BenchRow, runBench } from './bench.js';
export type { ExchangeLog } from './exchange-log.js';
export * from './models/exports.js';
export { SCENARIOS, type Scenario } from './scenarios.js';
export { type RunResult, type SimulateOptions, simulate } from './simulate.js';
export { STRATEGIES, type Strategy, type StrategyContext } from './strategies/index.js';
export type { RunSummary } from './summary.js';
export type { Exchange, ExchangeRequest, Transport } from './transport.js';
export type { Workload, WorkQueue } from './work.js';
