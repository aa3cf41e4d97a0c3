/**
 * `ratewise/analyze`: reading what happened — the events-log analyser, the
 * soft-throttling detectors and the HTML report.
 *
 * @packageDocumentation
 */
export {
  type LatencyBaseline,
  type ParsedBaseline,
  parseBaseline,
} from '../detect/baseline-file.js';
export {
  type BimodalOptions,
  type BimodalResult,
  detectBimodal,
  type LatencyMode,
} from '../detect/bimodal.js';
export {
  BaselineCapture,
  type BaselineCaptureOptions,
  type BaselineCheckOptions,
  type BaselineVerdict,
  checkAgainstBaseline,
  type WindowSummary,
} from '../detect/latency-baseline.js';
export {
  LatencyMonitor,
  type LatencyMonitorOptions,
  type LatencyMonitorState,
} from '../detect/latency-monitor.js';
export type { Percentiles } from '../detect/percentiles.js';
export {
  diagnosePhases,
  type PhaseDiagnosis,
  type PhaseDiagnosisOptions,
  type PhaseMedians,
  type PhaseVerdict,
} from '../detect/phase-diagnosis.js';
export {
  detectRamp,
  type RampObservation,
  type RampOptions,
  type RampResult,
  type RampVerdict,
} from '../detect/ramp.js';
export {
  type SelfCheckFinding,
  type SelfCheckMeasurements,
  type SelfCheckOptions,
  type SelfCheckResult,
  type SelfCheckSide,
  selfCheck,
} from '../detect/self-check.js';
export {
  type Completion,
  ThroughputDecayDetector,
  type ThroughputDecayOptions,
  type ThroughputDecayState,
  type ThroughputNormalisation,
} from '../detect/throughput-decay.js';
export type { AlarmTransition } from '../detect/transition.js';
export { TooManyWindowsError, UnusableLogError } from '../errors.js';
export type { CompareRun } from '../report/comparison.js';
export {
  type WriteReportOptions,
  type WrittenReport,
  writeReport,
} from '../report/write-report.js';
export type { AlarmRecord, AlarmSource } from './alarm-replay.js';
export type { Diagnosis, DiagnosisVerdict } from './diagnosis.js';
export { formatAnalysis } from './format-analysis.js';
export type { LineCounts, LogAnalysis, LogSpan, LogTotals, MalformedLine } from './log-analysis.js';
export { analyzeLines, LogAnalyzer, type LogAnalyzerOptions } from './log-analyzer.js';
export { analyzeLog, readLogLines } from './read-log.js';
export type { LineFormat } from './records.js';
export type { RunSpan, RunsSummary } from './runs.js';
export type { LineUse } from './unusable-log.js';
export type { WindowRow } from './window-row.js';
