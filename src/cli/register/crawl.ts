import { type Command, Option } from 'commander';
import { DEFAULT_MAX_CONCURRENCY, MAX_REFUSED_SHARE } from '../../controller/control-bounds.js';
import type { CrawlCommandOptions } from '../crawl.js';
import { metricsAddress } from '../metrics-port.js';
import { numberArg, positiveArg, shareArg } from '../parsers.js';
import { exitWith } from '../program.js';

/** Registers `ratewise crawl <file|->`. */
export function registerCrawl(program: Command): Command {
  return program
    .command('crawl')
    .description('fetch URLs (one per line) politely and fast, under per-scope rate control')
    .addHelpText(
      'after',
      '\nCtrl-C (SIGINT) stops admitting, lets the requests in flight finish (a second one cancels\n' +
        'them), flushes the files and exits 130; SIGTERM does the same and exits 143; --duration\n' +
        'ends the same way but exits 0. A URL is written to --out once finished, so --resume after\n' +
        'any interruption neither loses nor repeats one. <file> may be a named pipe (<(cmd)).',
    )
    .argument(
      '<file>',
      'file of URLs, one per line (blank lines and # comments skipped), or - for stdin',
    )
    .option(
      '--out <file>',
      'results: one JSON line per URL (url, status, signal, attempts, timings, bytes, error); without it, or with -, they go to stdout and the summary to stderr',
    )
    .option('--save-bodies <dir>', 'save each body in this directory, named by a hash of its URL')
    .option('--log <file>', 'controller events, one JSON line each (the time series)')
    .option(
      '--max-concurrency <n>',
      'most requests in flight per scope',
      numberArg({ min: 1, integer: true }),
      DEFAULT_MAX_CONCURRENCY,
    )
    .option(
      '--rate <r>',
      'a rate limit the server documents, requests/s; never exceeded',
      positiveArg,
    )
    .option(
      '--refused-share <share>',
      'the share of requests probing for more capacity may spend on refusals (default 0.01; 0 never probes)',
      shareArg(MAX_REFUSED_SHARE),
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
    .option(
      '--redis <url>',
      'share every scope with the other crawls on this Redis (fleet mode): one window, rate and pause',
    )
    .option('--json', 'print a JSON summary as the last line on stdout')
    .option(
      '--metrics-port <[host:]port>',
      'serve Prometheus metrics at http://127.0.0.1:<port>/metrics while crawling (needs prom-client)',
      metricsAddress,
    )
    .action((file: string, options: CrawlCommandOptions) =>
      exitWith(import('../crawl.js').then(({ crawlCommand }) => crawlCommand(file, options))),
    );
}
