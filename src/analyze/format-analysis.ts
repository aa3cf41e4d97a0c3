import type { AlarmRecord } from './alarm-replay.js';
import { BIMODAL_QUESTION, bimodalWords, RAMP_QUESTION, rampWords } from './detector-words.js';
import type { LogAnalysis } from './log-analysis.js';
import { otherFailures } from './records.js';
import { formatMs, formatNumber, formatOffset, type TextColumn, textTable } from './text-table.js';
import { isWallClock, utcTimeOfDay } from './wall-clock.js';
import type { WindowRow } from './window-row.js';

/**
 * Renders a {@link LogAnalysis} as the human output of `ratewise analyze`:
 * the window table (phase columns only when timings exist, controller
 * columns only when events exist), then the alarms, the detector verdicts
 * and the diagnosis in plain words.
 */
export function formatAnalysis(analysis: LogAnalysis): string {
  const parts = [windowTable(analysis), '', ...summaryLines(analysis)];
  return `${parts.join('\n')}\n`;
}

function windowTable(analysis: LogAnalysis): string {
  const rows = analysis.windows;
  if (rows.length === 0) return 'No timed requests: nothing to show per window.';
  const wall = isWallClock(analysis.span?.start ?? 0);
  const control = rows.some((r) => r.inflightMax !== null);
  const phases = rows.some((r) => r.phases !== null);
  const columns: TextColumn[] = [{ header: 'offset', align: 'left' }];
  if (wall) columns.push({ header: 'UTC', align: 'left' });
  columns.push(
    ...['reqs', 'req/s', 'p50 ms', 'p95 ms', 'p99 ms', '429', '503', 'other fail'].map(
      (header) => ({
        header,
      }),
    ),
  );
  if (phases) columns.push(...['conn ms', 'wait ms', 'body ms'].map((header) => ({ header })));
  if (control) columns.push(...['limit', 'inflight', 'rate'].map((header) => ({ header })));
  columns.push({ header: 'alarms', align: 'left' });
  const full = analysis.windowS * 1000;
  const cells = rows.map((row) => {
    const mark = row.durationMs < full ? '*' : row.durationMs > full ? '~' : '';
    const out = [`${formatOffset(row.offsetS)}${mark}`];
    if (wall) out.push(utcTimeOfDay(row.start));
    out.push(...requestCells(row));
    if (phases) out.push(...phaseCells(row));
    if (control) out.push(...controlCells(row));
    out.push(row.alarms > 0 ? '!'.repeat(Math.min(row.alarms, 5)) : '');
    return out;
  });
  const notes = [];
  if (rows.at(-1)?.durationMs !== full)
    notes.push('* the last window ends at the last record (partial).');
  if (rows.some((row) => row.durationMs > full)) {
    notes.push('~ a stall: one row for a run of empty windows, up to the next row.');
  }
  const note = notes.map((n) => `\n${n}`).join('');
  return `Windows of ${analysis.windowS} s:\n${textTable(columns, cells)}${note}`;
}

function requestCells(row: WindowRow): string[] {
  return [
    String(row.requests),
    formatNumber(row.rps),
    formatMs(row.p50),
    formatMs(row.p95),
    formatMs(row.p99),
    String(row.throttled),
    String(row.overloaded),
    String(otherFailures(row)),
  ];
}

function phaseCells(row: WindowRow): string[] {
  const p = row.phases;
  if (!p) return ['-', '-', '-'];
  return [formatMs(p.dnsMs + p.connectMs + p.tlsMs), formatMs(p.waitMs), formatMs(p.bodyMs)];
}

function controlCells(row: WindowRow): string[] {
  const inflight =
    row.inflightMax === null ? '-' : `${formatNumber(row.inflightMean)}/${row.inflightMax}`;
  return [formatNumber(row.limit, 0), inflight, row.rate === null ? '-' : formatNumber(row.rate)];
}

function summaryLines(a: LogAnalysis): string[] {
  const { lines, totals, span } = a;
  const formats = Object.entries(lines.byFormat)
    .filter(([, n]) => n > 0)
    .map(([format, n]) => `${n} ${format}`)
    .join(', ');
  const unsent = lines.unsent > 0 ? `, ${lines.unsent} never sent (attempts 0)` : '';
  const runStarts = lines.runStarts > 0 ? `, ${lines.runStarts} run start` : '';
  const out = [
    `Lines: ${lines.total} read (${formats || 'none usable'}${runStarts}), ${lines.blank} blank${unsent}, ${lines.malformed} malformed.`,
    ...a.malformedExamples.map((m) => `  line ${m.line}: ${m.reason}`),
    ...runLines(a),
  ];
  const over = span
    ? ` over ${formatNumber(a.runs.activeS, 0)} s${a.runs.count > 1 ? ' of runs' : ''}, ${formatNumber(totals.rps)} req/s`
    : '';
  const sampled = totals.exactPercentiles ? '' : ' (from a uniform sample)';
  out.push(
    `Requests: ${totals.requests}${over}, ${totals.ok} ok; p50 ${formatMs(totals.p50)} ms, p95 ${formatMs(totals.p95)} ms, p99 ${formatMs(totals.p99)} ms${sampled}; ${totals.throttled} × 429, ${totals.overloaded} × 503, ${otherFailures(totals)} other failures.`,
  );
  if (totals.throttled + totals.overloaded > 0 && lines.byFormat.event > 0) {
    out.push(
      '  Requests are attempts: a refused request that was retried counts once per attempt.',
    );
  }
  if (totals.untimed > 0) {
    const hint =
      lines.byFormat.result > 0
        ? ' (crawl results carry no time: analyze the crawl --log events for them)'
        : '';
    out.push(
      `  ${totals.untimed} requests carried no time: left out of windows and alarms${hint}.`,
    );
  }
  if (totals.late > 0)
    out.push(
      `  ${totals.late} lines arrived after their window closed (out of order): left out of windows.`,
    );
  if (totals.baselineP95 !== null)
    out.push(`Latency baseline p95: ${formatMs(totals.baselineP95)} ms.`);
  out.push(...alarmLines(a.alarms, span?.start ?? 0));
  if (a.phases) out.push(`Phases: ${a.phases.explanation}.`);
  out.push(`${RAMP_QUESTION} ${rampWords(a.ramp.verdict)}`);
  out.push(`  (${a.ramp.verdict}: ${a.ramp.explanation})`);
  out.push(`${BIMODAL_QUESTION} ${bimodalWords(a.bimodal)}`);
  out.push(`  (${a.bimodal.explanation})`);
  const d = a.diagnosis;
  out.push('', `Diagnosis: ${d.verdict}. ${d.summary}`, ...d.findings.map((f) => `  - ${f}`));
  return out;
}

/** With several runs: how they were laid out, and each one's start, length and requests. */
function runLines(a: LogAnalysis): string[] {
  const { runs } = a;
  if (runs.count < 2) return [];
  const wall = isWallClock(a.span?.start ?? 0);
  const shown = runs.list.slice(0, 10).map((run, i) => {
    const start = wall
      ? `${utcTimeOfDay(run.start)} UTC`
      : formatOffset((run.start - (a.span?.start ?? 0)) / 1000);
    return `  run ${i + 1}: ${start}, ${formatNumber((run.end - run.start) / 1000, 0)} s, ${run.requests} requests${run.id ? ` (${run.id})` : ''}`;
  });
  const more = runs.count > shown.length ? [`  … ${runs.count - shown.length} more`] : [];
  return [
    `Runs: ${runs.count}, one after the other on the wall clock; rates count the runs' own time, not the gaps between them.`,
    ...shown,
    ...more,
  ];
}

function alarmLines(alarms: readonly AlarmRecord[], start: number): string[] {
  if (alarms.length === 0) return ['Alarms: none.'];
  const shown = alarms.slice(0, 20).map((alarm) => {
    const side = alarm.side ? ` (${alarm.side})` : '';
    return `  ${formatOffset((alarm.at - start) / 1000)} ${alarm.source} ${alarm.transition}${side}: ${alarm.detail}`;
  });
  const more = alarms.length > 20 ? [`  … ${alarms.length - 20} more (see --json)`] : [];
  return [`Alarms (${alarms.length}):`, ...shown, ...more];
}
