import type { LineUse } from '../analyze/unusable-log.js';
import { RatewiseError } from './ratewise-error.js';

/**
 * A log in which no line is a ratewise event, a crawl result or a plain
 * `ISO8601 url latency_ms` line — an empty file, or the wrong file — so
 * there is nothing to analyse. The CLI reports it in one line, exit 2.
 */
export class UnusableLogError extends RatewiseError {
  constructor(log: string, use: LineUse) {
    super('ERR_RATEWISE_UNUSABLE_LOG', `${log}: ${why(use)}`);
  }
}

function why(use: LineUse): string {
  if (use.total === 0) return 'the log is empty: nothing to analyse';
  if (use.malformed === 0) return 'the log has only blank lines and # comments: nothing to analyse';
  const first = use.firstMalformed;
  const example = first ? ` (line ${first.line}: ${first.reason})` : '';
  return `none of its ${use.total} lines is a ratewise event, a crawl result or an "ISO8601 url latency_ms" line${example}`;
}

/** A log cut into windows of `windowMs` would need more than `maxRows` rows. */
export class TooManyWindowsError extends RatewiseError {
  /** The window length that was too narrow, ms. */
  readonly windowMs: number;

  constructor(windowMs: number, maxRows: number) {
    super(
      'ERR_RATEWISE_TOO_MANY_WINDOWS',
      `this log needs more than ${maxRows} rows in windows of ${windowMs / 1000} s: analyse it with a wider window`,
    );
    this.windowMs = windowMs;
  }
}
