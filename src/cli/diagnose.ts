import { runConcurrencyRamp, type StepProbes } from '../analyze/concurrency-ramp.js';
import { createHttpProbe } from '../analyze/http-probe.js';
import { judgeKnee, type KneeVerdict, type RampStep } from '../analyze/knee.js';
import { formatMs, formatNumber, textTable } from '../analyze/text-table.js';
import { isHttpUrl } from '../client/request-input.js';
import { type Clock, systemClock } from '../clock.js';
import { redactUrl } from '../util/redact.js';
import { type CommandIo, processIo, reportFailure } from './analyze.js';
import { UsageError } from './usage-error.js';

/** Options of `ratewise diagnose`. */
export interface DiagnoseCommandOptions {
  /** Highest concurrency tried. @default 64 */
  maxConcurrency?: number;
  /** Requests per step (at least 4 × its concurrency are sent). @default 50 */
  requestsPerStep?: number;
  /** Longest one request may take, ms. @default 30000 */
  timeoutMs?: number;
  json?: boolean;
}

/** How `diagnose` reaches the network and the clock (tests substitute both). */
export interface DiagnoseDeps {
  io: CommandIo;
  clock: Clock;
  probes: (timeoutMs: number) => StepProbes;
  /** Aborts the ramp (Ctrl-C). */
  signal?: AbortSignal;
}

const defaultDeps = (): DiagnoseDeps => ({
  io: processIo(),
  clock: systemClock,
  probes: (timeoutMs) => ({ open: (concurrency) => createHttpProbe({ concurrency, timeoutMs }) }),
});

/**
 * `ratewise diagnose <url>`: ramps concurrency 1, 2, 4 … against `url`,
 * prints a line per step on stderr as it goes, then the step table and the
 * verdict — scaling, knee at N (and why), throttled at N, failing at N.
 * Interrupted (Ctrl-C, `deps.signal`), it says so on stderr and prints the
 * table and verdict of the steps finished by then. Exit 0 with a verdict,
 * 1 when nothing came back, 2 for a bad URL.
 */
export async function runDiagnose(
  url: string,
  options: DiagnoseCommandOptions,
  deps: DiagnoseDeps = defaultDeps(),
): Promise<number> {
  const { io } = deps;
  try {
    if (!isHttpUrl(url)) throw new UsageError(`not an http(s) URL: ${redactUrl(url)}`);
    const steps = await runConcurrencyRamp(
      url,
      deps.probes(options.timeoutMs ?? 30_000),
      deps.clock,
      {
        maxConcurrency: options.maxConcurrency ?? 64,
        requestsPerStep: options.requestsPerStep ?? 50,
        ...(deps.signal ? { signal: deps.signal } : {}),
        onStep: (s) => {
          const line = `concurrency ${s.concurrency}: ${formatNumber(s.rps)} req/s, p50 ${formatMs(s.p50)} ms, ${s.throttled + s.overloaded} rejected, ${s.errors} failed`;
          io.stderr.write(`${line}\n`);
        },
      },
    );
    if (deps.signal?.aborted) {
      io.stderr.write(`interrupted: ${steps.length} finished step(s) shown\n`);
    }
    const verdict = judgeKnee(steps);
    io.stdout.write(
      options.json ? `${JSON.stringify({ url, steps, verdict })}\n` : stepTable(steps, verdict),
    );
    return verdict.verdict === 'insufficient-data' ? 1 : 0;
  } catch (error) {
    return reportFailure(io, error);
  }
}

/**
 * Runs `ratewise diagnose` on the network and the clock of the process, a
 * Ctrl-C ending the ramp early; resolves with the exit code of {@link runDiagnose}.
 */
export async function diagnoseCommand(
  url: string,
  options: DiagnoseCommandOptions,
): Promise<number> {
  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once('SIGINT', stop);
  try {
    return await runDiagnose(url, options, { ...defaultDeps(), signal: abort.signal });
  } finally {
    process.off('SIGINT', stop);
  }
}

function stepTable(steps: readonly RampStep[], verdict: KneeVerdict): string {
  const rows = steps.map((s) => [
    String(s.concurrency),
    String(s.requests),
    formatNumber(s.rps),
    formatMs(s.p50),
    formatMs(s.p95),
    String(s.ok),
    String(s.throttled),
    String(s.overloaded),
    String(s.errors),
    formatMs(s.phases ? s.phases.dnsMs + s.phases.connectMs + s.phases.tlsMs : null),
    formatMs(s.phases?.waitMs),
    formatMs(s.phases?.bodyMs),
  ]);
  const headers = [
    'in flight',
    'requests',
    'req/s',
    'p50 ms',
    'p95 ms',
    'ok',
    '429',
    '503',
    'errors',
  ];
  const columns = [...headers, 'conn ms', 'wait ms', 'body ms'].map((header) => ({ header }));
  return `${textTable(columns, rows)}\n\nVerdict: ${verdict.explanation}.\n`;
}
