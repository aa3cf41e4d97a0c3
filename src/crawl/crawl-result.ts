import { classify } from '../classify.js';
import { ratewiseInfo } from '../client/response-info.js';
import type { SignalKind } from '../signal.js';
import type { PhaseTimings } from '../timings.js';
import { redactSecrets } from '../util/redact.js';
import { BodyWriteError } from './body-files.js';

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
  /** Why the URL failed — without a response, or while its body downloaded; else `null`. */
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

/**
 * The result of a URL whose response came but whose body failed (reset,
 * timeout, too large, or the file could not be written): status, attempts and
 * timings so far, the signal the controller was given (the response's own
 * when the file failed), and the error.
 */
export function bodyFailureResult(url: string, response: Response, error: unknown): CrawlResult {
  const result = responseResult(url, response);
  const kind =
    error instanceof BodyWriteError ? result.signal : (classify(error)?.kind ?? result.signal);
  return { ...result, signal: kind, error: errorText(error) };
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
    error: errorText(error),
  };
}

/** An error as results.jsonl records it: its message, secrets in URLs hidden. */
function errorText(error: unknown): string {
  return redactSecrets(error instanceof Error ? error.message : String(error));
}

/** Longest part of a malformed line kept in its result. */
const MAX_MALFORMED_KEPT = 2048;

/** The result of an input line that is not an http(s) URL, with why: reported, never sent. */
export function malformedResult(line: string, problem = 'not an http(s) URL'): CrawlResult {
  return {
    url: line.length > MAX_MALFORMED_KEPT ? `${line.slice(0, MAX_MALFORMED_KEPT)}…` : line,
    status: null,
    signal: null,
    attempts: 0,
    timings: null,
    bytes: 0,
    error: problem,
  };
}

/**
 * Whether a URL was given up: it failed without a response or while its body
 * downloaded, was malformed, or ended on a status that is neither 2xx nor 3xx.
 */
export function isFailure(result: CrawlResult): boolean {
  return (
    result.error !== null || result.status === null || result.status < 200 || result.status >= 400
  );
}
