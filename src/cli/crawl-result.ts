import { ratewiseInfo } from '../client/response-info.js';
import type { SignalKind } from '../signal.js';
import type { PhaseTimings } from '../timings.js';

/** One line of a crawl's results file: how one URL ended. */
export interface CrawlResult {
  /** The URL as given (the raw line, for a malformed one). */
  url: string;
  /** Final HTTP status; `null` when no response came back. */
  status: number | null;
  /** The final attempt's classified signal; `null` when nothing was sent. */
  signal: SignalKind | null;
  /** Attempts made for the final hop (0 when nothing was sent). */
  attempts: number;
  /** Per-phase timings of the final attempt, when it got a response. */
  timings: PhaseTimings | null;
  /** Body bytes received. */
  bytes: number;
  /** Why the URL failed, when it did without a response; else `null`. */
  error: string | null;
  /** Where the body was saved (with `--save-bodies`). */
  file?: string;
}

/** The result of a URL whose response was read to the end. */
export function responseResult(url: string, response: Response, file?: string): CrawlResult {
  const info = ratewiseInfo(response);
  const timings = info?.timings() ?? null;
  return {
    url,
    status: response.status,
    signal: info?.signal.kind ?? null,
    attempts: info?.attempts ?? 1,
    timings,
    bytes: timings?.bytes ?? 0,
    error: null,
    ...(file === undefined ? {} : { file }),
  };
}

/** The result of a URL that failed without a response. */
export function failureResult(url: string, error: unknown): CrawlResult {
  const failed = error as { attempts?: unknown; signal?: { kind?: unknown } } | null;
  const attempts = typeof failed?.attempts === 'number' ? failed.attempts : 1;
  const kind = failed?.signal?.kind;
  return {
    url,
    status: null,
    signal: typeof kind === 'string' ? (kind as SignalKind) : null,
    attempts,
    timings: null,
    bytes: 0,
    error: error instanceof Error ? error.message : String(error),
  };
}

/** The result of an input line that is not an http(s) URL: reported, never sent. */
export function malformedResult(line: string): CrawlResult {
  return {
    url: line,
    status: null,
    signal: null,
    attempts: 0,
    timings: null,
    bytes: 0,
    error: 'not an http(s) URL',
  };
}

/** Whether a result counts as a success: a 2xx response. */
export function isOk(result: CrawlResult): boolean {
  return result.status !== null && result.status >= 200 && result.status < 300;
}
