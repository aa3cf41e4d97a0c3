import type { LogAnalysis } from '../analyze/log-analysis.js';
import type { ChartAssets } from './assets.js';
import { comparisonHtml } from './comparison.js';
import { escapeHtml as h, inlineScript, jsonForScript } from './escape.js';
import { PAGE_SCRIPT } from './page-script.js';
import type { ReportData } from './report-data.js';
import { detailsHtml, diagnosisHtml, windowsHtml } from './summary-html.js';

/** What the page says about where it came from. */
export interface ReportMeta {
  /** Title of the page, e.g. the log's file name. */
  title: string;
  /** When the report was made, ISO 8601. */
  generatedAt: string;
  /** The runs compared, named, this one first (with `ReportData.comparison`). */
  compared?: [string, LogAnalysis][];
}

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #222; max-width: 1160px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 24px 0 8px; }
.meta { color: #666; margin: 0 0 16px; }
.diagnosis { border-left: 6px solid #999; padding: 8px 16px; background: #f7f7f7; }
.diagnosis.healthy { border-color: #2ca02c; } .diagnosis.hard-throttling { border-color: #d62728; }
.diagnosis.soft-throttling { border-color: #ff7f0e; } .diagnosis.look-inward { border-color: #1f77b4; }
.chart { margin: 12px 0; }
table { border-collapse: collapse; } th, td { padding: 2px 8px; text-align: right; border-bottom: 1px solid #eee; }
table.facts th { text-align: left; color: #555; font-weight: normal; } table.facts td { text-align: left; }
ul.alarms li.alarm b { color: #d62728; } ul.alarms li.clear b { color: #2ca02c; }
.legend-note { color: #666; font-size: 12px; }
tr[title] { cursor: help; } td.why { text-decoration: underline dotted #999; }
`;

/**
 * The whole report as one self-contained HTML document: uPlot's script and
 * stylesheet, the chart data and the page script are inlined, and a
 * Content-Security-Policy of `default-src 'none'` forbids the page any
 * network request — it opens the same from a laptop, a CI artefact or an
 * e-mail attachment.
 */
export function renderReportHtml(
  analysis: LogAnalysis,
  data: ReportData,
  assets: ChartAssets,
  meta: ReportMeta,
): string {
  const span = analysis.span ? `${Math.round(analysis.span.durationS)} s of log` : 'no timed lines';
  const charts = [
    ...(data.comparison ? ['chart-compare'] : []),
    'chart-throughput',
    'chart-latency',
    ...(data.hasControl ? ['chart-control'] : []),
  ]
    .map((id) => `<div class="chart" id="${id}"></div>`)
    .join('\n');
  const omitted = data.alarmsOmitted > 0 ? ` (${data.alarmsOmitted} more alarms not drawn)` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="generator" content="ratewise report (uPlot ${h(assets.version)})">
<title>ratewise report — ${h(meta.title)}</title>
<style>${assets.css}${STYLE}</style>
</head>
<body>
<h1>ratewise report — ${h(meta.title)}</h1>
<p class="meta">${h(span)}, charts in buckets of ${h(String(data.bucketS))} s; generated ${h(meta.generatedAt)}.</p>
${diagnosisHtml(analysis)}
${meta.compared ? comparisonHtml(meta.compared) : ''}
<h2>Time series</h2>
<p class="legend-note">Dashed lines: alarms raised (red) and cleared (green)${h(omitted)}. Dots: 429s and 503s per bucket.</p>
${charts}
${detailsHtml(analysis)}
${windowsHtml(analysis)}
<script>${inlineScript(assets.script)}</script>
<script id="ratewise-data" type="application/json">${jsonForScript(data)}</script>
<script>${inlineScript(PAGE_SCRIPT)}</script>
</body>
</html>
`;
}
