import { UnusableLogError } from '../errors.js';
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
