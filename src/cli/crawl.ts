import { constants, createReadStream } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { type Command, Option } from 'commander';
import { type BufferedSink, jsonlSink } from '../events/jsonl-sink.js';
import type { CrawlSummary } from './crawl-tally.js';
import { countLines, readLines } from './line-reader.js';
import { numberArg, positiveArg } from './parsers.js';
import { progressDisplay } from './progress-display.js';
import { runCrawl } from './run-crawl.js';
import { UsageError } from './usage-error.js';

/** Options of `ratewise crawl`, as commander parses them. */
export interface CrawlCommandOptions {
  out?: string;
  saveBodies?: string;
  log?: string;
  maxConcurrency: number;
  rate?: number;
  scope: 'host' | 'domain';
  duration?: number;
  resume?: boolean;
  json?: boolean;
}

/** Exit code after Ctrl-C (128 + SIGINT). */
const INTERRUPTED_EXIT = 130;

/** Registers `ratewise crawl <file|->`. */
export function registerCrawl(program: Command): Command {
  return program
    .command('crawl')
    .description('fetch URLs (one per line) politely and fast, under per-scope rate control')
    .addHelpText(
      'after',
      '\nCtrl-C stops admitting, lets the requests in flight finish (a second Ctrl-C cancels them),\n' +
        'flushes the files and exits 130; --duration ends the same way but exits 0. A URL is written\n' +
        'to --out once finished, so --resume after any interruption neither loses nor repeats one.',
    )
    .argument(
      '<file>',
      'file of URLs, one per line (blank lines and # comments skipped), or - for stdin',
    )
    .option(
      '--out <file>',
      'results: one JSON line per URL (url, status, signal, attempts, timings, bytes, error)',
    )
    .option('--save-bodies <dir>', 'save each body in this directory, named by a hash of its URL')
    .option('--log <file>', 'controller events, one JSON line each (the time series)')
    .option(
      '--max-concurrency <n>',
      'most requests in flight per scope',
      numberArg({ min: 1, integer: true }),
      32,
    )
    .option(
      '--rate <r>',
      'a rate limit the server documents, requests/s; never exceeded',
      positiveArg,
    )
    .addOption(
      new Option('--scope <scope>', 'what shares a rate limit')
        .choices(['host', 'domain'])
        .default('host'),
    )
    .option(
      '--duration <s>',
      'stop admitting after s seconds, finish what is in flight, exit 0',
      numberArg(),
    )
    .option('--resume', 'skip URLs already in --out and append the rest')
    .option('--json', 'print a JSON summary as the last line on stdout')
    .action(async (file: string, options: CrawlCommandOptions) => {
      process.exitCode = await crawlCommand(file, options);
    });
}

/** Runs `ratewise crawl`; resolves with the exit code. Usage problems throw {@link UsageError}. */
export async function crawlCommand(file: string, options: CrawlCommandOptions): Promise<number> {
  if (options.resume && options.out === undefined) throw new UsageError('--resume needs --out');
  const input = await openInput(file);
  const total = file === '-' ? undefined : await countLines(file);
  const log = options.log === undefined ? undefined : openLog(options.log, options.resume ?? false);
  const stop = new AbortController();
  const abort = new AbortController();
  const onSignal = () => (stop.signal.aborted ? abort.abort() : stop.abort());
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const display = progressDisplay(process.stderr);
  let summary: CrawlSummary;
  try {
    summary = await runCrawl({
      urls: lineTexts(input),
      ...(total === undefined ? {} : { total }),
      ...(options.out === undefined ? {} : { out: options.out }),
      resume: options.resume ?? false,
      ...(options.saveBodies === undefined ? {} : { saveBodies: options.saveBodies }),
      ...(log ? { events: log } : {}),
      maxConcurrency: options.maxConcurrency,
      ...(options.rate === undefined ? {} : { rate: options.rate }),
      scope: options.scope,
      ...(options.duration === undefined ? {} : { durationS: options.duration }),
      stop: stop.signal,
      abort: abort.signal,
      onProgress: (progress) => display.update(progress),
      progressIntervalMs: display.intervalMs,
    });
  } finally {
    input.destroy(); // after a stop, stdin may still be open and waiting
    display.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await log?.close();
  }
  process.stdout.write(options.json ? `${JSON.stringify(summary)}\n` : describe(summary));
  return summary.stopped === 'interrupted' ? INTERRUPTED_EXIT : 0;
}

async function openInput(file: string): Promise<Readable> {
  if (file === '-') return process.stdin;
  try {
    if (!(await stat(file)).isFile()) throw new UsageError(`cannot read ${file}: not a file`);
    await access(file, constants.R_OK);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  return createReadStream(file);
}

function openLog(path: string, resume: boolean): BufferedSink {
  try {
    return jsonlSink(path, { mode: resume ? 'append' : 'truncate' });
  } catch (error) {
    throw new UsageError(
      `cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
}

async function* lineTexts(input: Readable): AsyncGenerator<string> {
  for await (const line of readLines(input)) yield line.text;
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
    '',
  ].join('\n');
}
