/**
 * `ratewise/crawl`: the crawl engine behind `ratewise crawl` — a list of URLs
 * fetched under control, results appended as JSON lines, resumable without
 * lost or duplicated results, bodies saved to files.
 *
 * @packageDocumentation
 */

export { UsageError } from '../errors.js';
export type { CrawlOptions } from './crawl-options.js';
export type { BusiestScope, CrawlProgress } from './crawl-progress.js';
export type { CrawlResult } from './crawl-result.js';
export type { CrawlSummary } from './crawl-tally.js';
export { runCrawl } from './run-crawl.js';
export type { PausedScope } from './set-aside.js';
