import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The charting library inlined into every report: uPlot's browser build and stylesheet. */
export interface ChartAssets {
  /** uPlot's minified IIFE build (defines the global `uPlot`). */
  script: string;
  /** uPlot's stylesheet. */
  css: string;
  /** The uPlot version, from its package. */
  version: string;
}

let cached: ChartAssets | undefined;

/**
 * Reads uPlot's browser build from the installed `uplot` package (a runtime
 * dependency) once per process. The report inlines it, so the HTML file
 * opens without any network.
 */
export function loadChartAssets(): ChartAssets {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const read = (file: string) => readFileSync(require.resolve(`uplot/${file}`), 'utf8');
  const { version } = JSON.parse(read('package.json')) as { version: string };
  cached = { script: read('dist/uPlot.iife.min.js'), css: read('dist/uPlot.min.css'), version };
  return cached;
}
