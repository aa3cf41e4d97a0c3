import { constants, createReadStream } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { CrawlOptions } from '../crawl/crawl-options.js';
import type { CrawlSummary } from '../crawl/crawl-tally.js';
import { countUrls, readLines } from '../crawl/line-reader.js';
import { cutTornLine } from '../crawl/results-file.js';
import { runCrawl } from '../crawl/run-crawl.js';
import { type BufferedSink, jsonlSink } from '../events/jsonl-sink.js';
import { redactSecrets } from '../util/redact.js';
import { type MetricsAddress, serveMetrics } from './metrics-port.js';
import { progressDisplay } from './progress-display.js';
import { USAGE_EXIT, UsageError } from './usage-error.js';

/** Options of `ratewise crawl`, as commander parses them. */
export interface CrawlCommandOptions {
  out?: string;
  saveBodies?: string;
  log?: string;
  maxConcurrency: number;
  rate?: number;
  refusedShare?: number;
  scope: 'host' | 'domain';
  duration?: number;
  resume?: boolean;
  json?: boolean;
  redis?: string;
  metricsPort?: MetricsAddress;
}

/** Connects to the fleet's Redis, or fails at once with one line (never crawls alone by mistake). */
async function joinFleet(url: string) {
  if (!/^rediss?:\/\//.test(url))
    throw new UsageError(`--redis must be a redis:// URL, got ${JSON.stringify(url)}`);
  const { connectFleet } = await import('../redis/connect.js');
  return connectFleet(url, { log: (line) => process.stderr.write(`${line}\n`) });
}

/** The client options the flags give beyond runCrawl's own: the fleet, the probing budget. */
function clientOptions(
  fleet: Awaited<ReturnType<typeof joinFleet>> | undefined,
  refusedShare: number | undefined,
): Pick<CrawlOptions, 'client'> {
  if (fleet === undefined && refusedShare === undefined) return {};
  return {
    client: {
      ...(fleet === undefined ? {} : { fleet }),
      ...(refusedShare === undefined ? {} : { refusedShare }),
    },
  };
}

/** Exit codes after an interruption: 128 + the signal's number, as a shell reports it. */
const INTERRUPTED_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * Runs `ratewise crawl`; resolves with the exit code: 0, or 130 / 143 after
 * SIGINT / SIGTERM. Usage problems throw {@link UsageError}.
 */
export async function crawlCommand(file: string, options: CrawlCommandOptions): Promise<number> {
  const toStdout = options.out === undefined || options.out === '-';
  if (options.resume && toStdout) throw new UsageError('--resume needs --out <file>');
  const { stream: input, regular } = await openInput(file);
  // A pipe can be read only once: its URLs are not counted ahead.
  const total = regular ? await countCrawlable(file) : undefined;
  const log =
    options.log === undefined ? undefined : await openLog(options.log, options.resume ?? false);
  const fleet =
    options.redis === undefined
      ? undefined
      : await joinFleet(options.redis).catch(async (error: unknown) => {
          await log?.close();
          throw error;
        });
  const metrics =
    options.metricsPort === undefined
      ? undefined
      : await serveMetrics(options.metricsPort).catch(async (error: unknown) => {
          await log?.close();
          await fleet?.close();
          throw error;
        });
  const stop = new AbortController();
  const abort = new AbortController();
  let signalled: keyof typeof INTERRUPTED_EXIT = 'SIGINT';
  const onSignal = (signal: NodeJS.Signals) => {
    if (stop.signal.aborted) {
      abort.abort();
      return;
    }
    if (signal === 'SIGTERM') signalled = signal;
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // Results on a terminal's stdout would tear a progress bar apart: plain lines then.
  const display = progressDisplay(process.stderr, !(toStdout && process.stdout.isTTY));
  let summary: CrawlSummary;
  try {
    summary = await runCrawl({
      urls: readLines(input),
      ...(total === undefined ? {} : { total }),
      out: toStdout ? process.stdout : (options.out as string),
      resume: options.resume ?? false,
      ...(options.saveBodies === undefined ? {} : { saveBodies: options.saveBodies }),
      ...(log ? { events: log } : {}),
      ...clientOptions(fleet, options.refusedShare),
      maxConcurrency: options.maxConcurrency,
      ...(options.rate === undefined ? {} : { rate: options.rate }),
      scope: options.scope,
      ...(options.duration === undefined ? {} : { durationMs: options.duration * 1000 }),
      stop: stop.signal,
      abort: abort.signal,
      onProgress: (progress) => display.update(progress),
      ...(metrics ? { onClient: (client) => metrics.watch(client.registry) } : {}),
      progressIntervalMs: display.intervalMs,
    });
  } finally {
    input.destroy(); // after a stop, stdin may still be open and waiting
    display.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await log?.close();
    await fleet?.close();
    await metrics?.close();
  }
  // Results on stdout keep it for themselves: the summary goes to stderr.
  const report = toStdout ? process.stderr : process.stdout;
  report.write(options.json ? `${JSON.stringify(summary)}\n` : describe(summary));
  if (summary.urls > 0 && summary.malformed === summary.urls) {
    process.stderr.write(`ratewise: ${file === '-' ? 'stdin' : file}: no line is an http(s) URL\n`);
    return USAGE_EXIT;
  }
  return summary.stopped === 'interrupted' ? INTERRUPTED_EXIT[signalled] : 0;
}

/**
 * The URLs of a file, counted ahead for the progress; a file with URL lines
 * none of which can be crawled (the wrong file) is a {@link UsageError}.
 */
async function countCrawlable(file: string): Promise<number> {
  const count = await countUrls(file);
  const first = count.firstProblem;
  if (count.urls > 0 && count.valid === 0 && first) {
    const shown = redactSecrets(first.text);
    const text = shown.length > 60 ? `${shown.slice(0, 60)}…` : shown;
    throw new UsageError(
      `${file}: no line is an http(s) URL (${count.urls} checked; line ${first.line}: ${first.problem}: ${JSON.stringify(text)})`,
    );
  }
  return count.urls;
}

/** The input stream; `regular` for a file that can be read twice (counted, then crawled). */
async function openInput(file: string): Promise<{ stream: Readable; regular: boolean }> {
  if (file === '-') return { stream: process.stdin, regular: false };
  let regular: boolean;
  try {
    const info = await stat(file);
    regular = info.isFile();
    if (!regular && !info.isFIFO()) throw new UsageError(`cannot read ${file}: not a file`);
    await access(file, constants.R_OK);
  } catch (error) {
    throw UsageError.file('read', file, error);
  }
  return { stream: createReadStream(file), regular };
}

/** The events log: appended to on `--resume`, after cutting a line the interruption tore. */
async function openLog(path: string, resume: boolean): Promise<BufferedSink> {
  try {
    if (resume) await cutTornLine(path);
    return jsonlSink(path, { mode: resume ? 'append' : 'truncate' });
  } catch (error) {
    throw UsageError.file('write', path, error);
  }
}

function describe(s: CrawlSummary): string {
  const statuses = Object.entries(s.byStatus)
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ');
  const share =
    s.requests > 0 ? ` (${((100 * s.throttled) / s.requests).toFixed(1)} % of requests)` : '';
  return [
    `urls ${s.urls} (skipped ${s.skipped}, malformed ${s.malformed}), stopped: ${s.stopped}`,
    `requests ${s.requests}, ok ${s.ok} (${(s.ok / Math.max(s.elapsedS, 1e-9)).toFixed(1)}/s), 429s ${s.throttled}${share}, failed ${s.failed}`,
    `elapsed ${s.elapsedS.toFixed(1)} s; by status: ${statuses || 'none'}`,
    ...pausedLines(s),
    '',
  ].join('\n');
}

/** The URLs set aside for paused scopes, one line per scope. */
function pausedLines(s: CrawlSummary): string[] {
  if (s.setAside === 0) return [];
  return [
    `set aside ${s.setAside} URLs of paused scopes, not written (--resume fetches them):`,
    ...s.paused.map(
      (p) => `  ${p.scope}: ${p.urls} URLs, paused until ${p.until} after ${p.reason}`,
    ),
  ];
}
