import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type CancelTimer, systemClock } from '../clock.js';
import type { EventSink } from '../events/event.js';
import { fanout } from '../events/fanout.js';
import { jsonlSink } from '../events/jsonl-sink.js';
import { writeReport } from '../report/write-report.js';
import { ExchangeLog } from '../sim/exchange-log.js';
import { runLoopback } from '../sim/loopback.js';
import { findScenario, type Scenario } from '../sim/scenarios.js';
import { naive, ratewise, type Strategy } from '../sim/strategies/index.js';
import type { RunSummary } from '../sim/summary.js';
import { DEMO_COLUMNS, demoVerdict, writeExchangeLog } from './demo-parts.js';
import { UsageError } from './usage-error.js';

/** Options of `ratewise demo`, as commander parses them. */
export interface DemoOptions {
  duration: number;
  dir: string;
  /** The former name of `dir`, kept for scripts that use it. */
  out?: string;
  compare: boolean;
  json?: boolean;
}

/** Runs `ratewise demo`; resolves with the exit code. */
export async function demoCommand(options: DemoOptions): Promise<number> {
  const scenario = findScenario('reference-000') as Scenario;
  const folder = options.out ?? options.dir;
  const out = resolve(folder);
  await mkdir(out, { recursive: true }).catch((error: unknown) => {
    throw UsageError.file('write', folder, error);
  });
  const eventsPath = join(out, 'events.jsonl');
  const say = (line: string) => {
    if (!options.json) process.stdout.write(`${line}\n`);
  };
  say(`ratewise demo: ${scenario.description}; 40 workers for ${options.duration} s each run`);
  say(DEMO_COLUMNS);
  say('\nratewise (one controller for the host: AIMD + adaptive rate + breaker):');
  const events = jsonlSink(eventsPath, { mode: 'truncate' });
  let mine: RunSummary;
  try {
    mine = await watchedRun(scenario, ratewise, options.duration, events, say);
  } finally {
    await events.close();
  }
  let theirs: RunSummary | undefined;
  const naivePath = join(out, 'naive.log');
  if (options.compare) {
    say('\nnaive (40 workers, each retrying its own 429s after 1 s, 2 s, 4 s … without jitter):');
    const log = new ExchangeLog();
    const wallStart = systemClock.wallNow();
    theirs = await watchedRun(scenario, naive, options.duration, undefined, say, log);
    await writeExchangeLog(naivePath, log, wallStart, 'http://127.0.0.1/demo');
  }
  const report = await writeReport({
    log: eventsPath,
    out: join(out, 'report.html'),
    title: 'ratewise demo',
    ...(theirs ? { compare: { log: naivePath, label: 'naive' } } : {}),
  });
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({ ratewise: mine, naive: theirs, events: eventsPath, report: report.path })}\n`,
    );
    return 0;
  }
  say(`\n${summaryTable(mine, theirs)}`);
  if (theirs) say(`\n${demoVerdict(mine, theirs, options.duration)}`);
  say(`\nevents log: ${eventsPath}\nreport:     ${report.path}`);
  return 0;
}

/** Runs one strategy on a fresh loopback server, printing (t, limit, ok, 429s) every 2 s. */
async function watchedRun(
  scenario: Scenario,
  strategy: Strategy,
  seconds: number,
  sink: EventSink | undefined,
  say: (line: string) => void,
  log = new ExchangeLog(),
): Promise<RunSummary> {
  let limit: number | undefined;
  const track: EventSink = (event) => {
    limit = event.limit;
  };
  const started = systemClock.now();
  let cancel: CancelTimer | undefined;
  const tick = () => {
    const t = (systemClock.now() - started) / 1000;
    const ok = log.status.filter((s) => s >= 200 && s < 300).length;
    const rejected = log.status.filter((s) => s === 429).length;
    const shown = limit === undefined ? '  –' : String(limit).padStart(3);
    say(
      `t=${t.toFixed(1).padStart(5)}s limit=${shown} ok=${String(ok).padStart(5)} 429s=${String(rejected).padStart(5)}`,
    );
    cancel = systemClock.setTimer(2000, tick);
  };
  cancel = systemClock.setTimer(2000, tick);
  try {
    const events = sink ? fanout([sink, track]) : track;
    const { summary } = await runLoopback(scenario, strategy, {
      durationMs: seconds * 1000,
      events,
      log,
    });
    return summary;
  } finally {
    cancel?.();
  }
}

function summaryTable(mine: RunSummary, theirs: RunSummary | undefined): string {
  const row = (name: string, s: RunSummary) =>
    `| ${name} | ${s.ok} | ${s.rejected} | ${s.okPerS.toFixed(1)} | ${((s.capacityShare ?? 0) * 100).toFixed(0)} % | ${s.rejectedShare === null ? '—' : `${(s.rejectedShare * 100).toFixed(1)} %`} |`;
  return [
    '| strategy | ok | 429s | ok/s (steady) | of capacity | rejected |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    row('ratewise', mine),
    ...(theirs ? [row('naive', theirs)] : []),
  ].join('\n');
}
