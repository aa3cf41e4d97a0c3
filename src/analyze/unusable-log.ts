import { RatewiseError } from '../errors.js';
import type { LogAnalysis, MalformedLine } from './log-analysis.js';
import type { ParsedLine } from './records.js';

/** How many lines of a log were read, and how many of them were understood. */
export interface LineUse {
  total: number;
  /** Events, run starts, crawl results (sent or not) and plain request lines. */
  understood: number;
  malformed: number;
  /** The first rejected line, to show what went wrong. */
  firstMalformed?: MalformedLine;
}

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

/** The {@link LineUse} of an analysis. */
export function lineUse({ lines, malformedExamples }: LogAnalysis): LineUse {
  const { byFormat, unsent, runStarts } = lines;
  const use: LineUse = {
    total: lines.total,
    understood: byFormat.event + byFormat.result + byFormat.plain + unsent + runStarts,
    malformed: lines.malformed,
  };
  const [first] = malformedExamples;
  if (first) use.firstMalformed = first;
  return use;
}

/** Counts the lines of a log as they are parsed (for readers that do not run a whole analysis). */
export class LineUseCounter {
  readonly use: LineUse = { total: 0, understood: 0, malformed: 0 };

  /** Counts one parsed line. */
  add(parsed: ParsedLine): void {
    const use = this.use;
    use.total++;
    if (parsed.kind === 'malformed') {
      use.malformed++;
      use.firstMalformed ??= { line: use.total, reason: parsed.reason };
    } else if (parsed.kind !== 'blank') use.understood++;
  }
}

/** Throws {@link UnusableLogError} unless at least one line of the log was understood. */
export function requireUsable(use: LineUse, log: string): void {
  if (use.understood === 0) throw new UnusableLogError(log, use);
}

function why(use: LineUse): string {
  if (use.total === 0) return 'the log is empty: nothing to analyse';
  if (use.malformed === 0) return 'the log has only blank lines and # comments: nothing to analyse';
  const first = use.firstMalformed;
  const example = first ? ` (line ${first.line}: ${first.reason})` : '';
  return `none of its ${use.total} lines is a ratewise event, a crawl result or an "ISO8601 url latency_ms" line${example}`;
}
