import {
  BIMODAL_QUESTION,
  bimodalWords,
  RAMP_QUESTION,
  rampWords,
} from '../analyze/detector-words.js';
import type { LogAnalysis } from '../analyze/log-analysis.js';
import { otherFailures } from '../analyze/records.js';
import { formatMs, formatNumber, formatOffset } from '../analyze/text-table.js';
import type { WindowRow } from '../analyze/window-row.js';
import { escapeHtml as h } from './escape.js';

/** Rows of the window table shown in a report; longer runs show this many, evenly picked. */
const MAX_TABLE_ROWS = 300;

/** The diagnosis: verdict, one-sentence summary, findings. */
export function diagnosisHtml(a: LogAnalysis): string {
  const d = a.diagnosis;
  const findings = d.findings.map((f) => `<li>${h(f)}</li>`).join('');
  return `<section class="diagnosis ${h(d.verdict)}"><h2>Diagnosis: ${h(d.verdict)}</h2><p>${h(d.summary)}</p>${findings ? `<ul>${findings}</ul>` : ''}</section>`;
}

/** A fact of the summary: its name, its value in words, and the statistic behind it (a tooltip). */
type Fact = [name: string, value: string, statistic?: string];

/** Totals, line counts, alarms and the detectors' verdicts, in words (figures in tooltips). */
export function detailsHtml(a: LogAnalysis): string {
  const t = a.totals;
  const facts: Fact[] = [
    [
      'Requests',
      `${t.requests}${a.span ? ` over ${formatNumber(a.runs.activeS, 0)} s` : ''}, ${t.ok} ok`,
    ],
    ['Requests/s', formatNumber(t.rps)],
    ...runsFact(a),
    [
      'Latency p50 / p95 / p99',
      `${formatMs(t.p50)} / ${formatMs(t.p95)} / ${formatMs(t.p99)} ms${t.exactPercentiles ? '' : ' (sampled)'}`,
    ],
    ['Baseline p95', t.baselineP95 === null ? '-' : `${formatMs(t.baselineP95)} ms`],
    ['429 / 503 / other failures', `${t.throttled} / ${t.overloaded} / ${otherFailures(t)}`],
    [
      'Lines',
      `${a.lines.total} read, ${a.lines.malformed} malformed, ${a.lines.blank} blank${a.lines.unsent > 0 ? `, ${a.lines.unsent} never sent` : ''}`,
    ],
    ['Phases', a.phases ? a.phases.explanation : 'no timings in the log'],
    [RAMP_QUESTION, rampWords(a.ramp.verdict), `${a.ramp.verdict}: ${a.ramp.explanation}`],
    [BIMODAL_QUESTION, bimodalWords(a.bimodal), a.bimodal.explanation],
  ];
  const rows = facts
    .map(([k, v, why]) => {
      const tip = why === undefined ? '' : ` title="${h(why)}"`;
      return `<tr${tip}><th>${h(k)}</th><td${why === undefined ? '' : ' class="why"'}>${h(v)}</td></tr>`;
    })
    .join('');
  return `<section><h2>Summary</h2><table class="facts">${rows}</table>${alarmsHtml(a)}</section>`;
}

function runsFact(a: LogAnalysis): Fact[] {
  if (a.runs.count < 2) return [];
  return [
    [
      'Runs',
      `${a.runs.count}, one after the other on the wall clock (rates leave out the gaps between them)`,
    ],
  ];
}

function alarmsHtml(a: LogAnalysis): string {
  if (a.alarms.length === 0) return '<h3>Alarms</h3><p>None.</p>';
  const start = a.span?.start ?? 0;
  const items = a.alarms
    .slice(0, 100)
    .map(
      (x) =>
        `<li class="${h(x.transition)}">${h(formatOffset((x.at - start) / 1000))} <b>${h(x.source)} ${h(x.transition)}</b>${x.side ? ` (${h(x.side)})` : ''}: ${h(x.detail)}</li>`,
    )
    .join('');
  const more = a.alarms.length > 100 ? `<p>… and ${a.alarms.length - 100} more.</p>` : '';
  return `<h3>Alarms (${a.alarms.length})</h3><ul class="alarms">${items}</ul>${more}`;
}

/** The per-window table of the analysis (at most {@link MAX_TABLE_ROWS} rows, evenly picked). */
export function windowsHtml(a: LogAnalysis): string {
  const rows = pickEvenly(a.windows, MAX_TABLE_ROWS);
  const full = a.windowS * 1000;
  const control = rows.some((w) => w.inflightMax !== null || w.limit !== null);
  const head = [
    'offset',
    'reqs',
    'req/s',
    'p50 ms',
    'p95 ms',
    'p99 ms',
    '429',
    '503',
    'other fail',
  ];
  if (control) head.push('limit', 'in flight', 'rate');
  head.push('alarms');
  const row = (w: WindowRow) =>
    cells(w, control, full)
      .map((c) => `<td>${h(c)}</td>`)
      .join('');
  const body = rows.map((w) => `<tr>${row(w)}</tr>`).join('');
  const shown =
    rows.length < a.windows.length
      ? `<p>${rows.length} of ${a.windows.length} windows shown, evenly spaced.</p>`
      : '';
  const stalls = rows.some((w) => w.durationMs > full)
    ? '<p>~ a stall: one row for a run of empty windows, up to the next row.</p>'
    : '';
  const note = shown + stalls;
  return `<section><h2>Windows of ${h(String(a.windowS))} s</h2>${note}<table class="windows"><thead><tr>${head.map((c) => `<th>${h(c)}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table></section>`;
}

function cells(w: WindowRow, control: boolean, full: number): string[] {
  const state = [
    formatNumber(w.limit, 0),
    w.inflightMax === null ? '-' : String(w.inflightMax),
    formatNumber(w.rate),
  ];
  return [
    `${formatOffset(w.offsetS)}${w.durationMs > full ? '~' : ''}`,
    String(w.requests),
    formatNumber(w.rps),
    formatMs(w.p50),
    formatMs(w.p95),
    formatMs(w.p99),
    String(w.throttled),
    String(w.overloaded),
    String(otherFailures(w)),
    ...(control ? state : []),
    w.alarms > 0 ? String(w.alarms) : '',
  ];
}

function pickEvenly<T>(items: readonly T[], most: number): T[] {
  if (items.length <= most) return [...items];
  const step = items.length / most;
  return Array.from({ length: most }, (_, i) => items[Math.floor(i * step)] as T);
}
