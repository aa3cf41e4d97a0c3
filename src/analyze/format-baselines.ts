import type { HostCapture } from './baseline-capture-run.js';
import type { HostCheck } from './baseline-check.js';
import { formatMs, formatNumber, textTable } from './text-table.js';

/** The table `ratewise baseline capture` prints: one row per host, then notes on hosts left early or empty. */
export function formatCaptures(captures: readonly HostCapture[], files: readonly string[]): string {
  const rows = captures.map((c, i) => [
    c.host,
    String(c.requests),
    String(c.ok),
    String(c.rejected),
    formatMs(c.baseline?.p50),
    formatMs(c.baseline?.p95),
    formatMs(c.baseline?.p99),
    files[i] ?? '-',
  ]);
  const columns = ['host', 'requests', 'ok', '429/503', 'p50 ms', 'p95 ms', 'p99 ms', 'file'].map(
    (header, i) => ({
      header,
      align: i === 0 || i === 7 ? ('left' as const) : ('right' as const),
    }),
  );
  const notes = captures
    .filter((c) => c.stoppedEarly || !c.baseline)
    .map(
      (c) =>
        `${c.host}: ${c.stoppedEarly ? `stopped after ${c.rejected} rejections` : 'no successful request'}${c.lastError ? ` (${c.lastError})` : ''}`,
    );
  return `${[textTable(columns, rows), ...notes].join('\n')}\n`;
}

/** The table `ratewise baseline check` prints: live p95 against the baseline per host, then notes. */
export function formatChecks(checks: readonly HostCheck[]): string {
  const rows = checks.map((c) => [
    c.host,
    String(c.samples),
    formatMs(c.liveP95),
    formatMs(c.baselineP95),
    c.ratio === null ? '-' : `${formatNumber(c.ratio, 2)}×`,
    c.verdict,
  ]);
  const columns = ['host', 'samples', 'live p95 ms', 'baseline p95 ms', 'ratio', 'verdict'].map(
    (header, i) => ({
      header,
      align: i === 0 || i === 5 ? ('left' as const) : ('right' as const),
    }),
  );
  const notes = checks.filter((c) => c.message).map((c) => `${c.host}: ${c.message}`);
  if (checks.length === 0) notes.push('no host with successful requests to check');
  return `${[textTable(columns, rows), ...notes].join('\n')}\n`;
}
