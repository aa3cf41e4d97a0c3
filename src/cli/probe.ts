import { Agent } from 'undici';
import { createClient } from '../client/client.js';
import { timedConnect } from '../client/connection-timings.js';
import { isHttpUrl } from '../client/request-input.js';
import { ratewiseTimings } from '../client/response-info.js';
import { drainBody } from '../crawl/body-files.js';
import {
  diagnosePhases,
  type PhaseDiagnosis,
  type PhaseVerdict,
} from '../detect/phase-diagnosis.js';
import type { PhaseTimings } from '../timings.js';
import { redactSecrets, redactUrl } from '../util/redact.js';
import { UsageError } from './usage-error.js';

/** Options of `ratewise probe`, as commander parses them. */
export interface ProbeOptions {
  n: number;
  keepAlive?: boolean;
  json?: boolean;
}

/** One probe request. */
export interface ProbeSample {
  status: number | null;
  timings: PhaseTimings | null;
  error: string | null;
}

const VERDICT_TEXT: Record<PhaseVerdict, string> = {
  healthy: 'healthy',
  tarpit: 'tarpit (the wait for the first byte dominates)',
  'byte-drip': 'byte-drip (the body phase dominates)',
  'slow-dns': 'slow DNS',
  'slow-connect': 'slow connect/TLS',
  mixed: 'slow, no single phase explains it',
  'insufficient-data': 'no usable timings',
};

/** Runs `ratewise probe`; resolves with the exit code (1 when no request got a response). */
export async function probeCommand(url: string, options: ProbeOptions): Promise<number> {
  if (!isHttpUrl(url)) throw new UsageError(`not an http(s) URL: ${redactUrl(url)}`);
  const agent = new Agent({ connections: 1, connect: timedConnect() });
  const client = createClient({
    dispatcher: agent,
    maxConcurrency: 1,
    retry: { maxAttempts: 1 },
    breaker: false,
  });
  const samples: ProbeSample[] = [];
  try {
    for (let i = 0; i < options.n; i++)
      samples.push(await probeOnce(client.fetch, url, options.keepAlive ?? false));
  } finally {
    await client.close();
    await agent.close();
  }
  const diagnosis = diagnosePhases(samples.flatMap((s) => (s.timings ? [s.timings] : [])));
  process.stdout.write(
    options.json
      ? `${JSON.stringify({ url: redactUrl(url), samples, diagnosis })}\n`
      : table(redactUrl(url), samples, diagnosis),
  );
  return samples.some((s) => s.status !== null) ? 0 : 1;
}

async function probeOnce(
  fetch: ReturnType<typeof createClient>['fetch'],
  url: string,
  keepAlive: boolean,
): Promise<ProbeSample> {
  try {
    const response = await fetch(url, keepAlive ? {} : { headers: { connection: 'close' } });
    await drainBody(response);
    return { status: response.status, timings: ratewiseTimings(response) ?? null, error: null };
  } catch (error) {
    return {
      status: null,
      timings: null,
      error: redactSecrets(error instanceof Error ? error.message : String(error)),
    };
  }
}

const COLUMNS = ['#', 'status', 'dns', 'connect', 'tls', 'ttfb', 'total', 'bytes'];

function table(url: string, samples: readonly ProbeSample[], diagnosis: PhaseDiagnosis): string {
  const rows = samples.map((s, i) => {
    if (!s.timings) return [`${i + 1}`, 'error', s.error ?? ''];
    const t = s.timings;
    return [
      `${i + 1}`,
      `${s.status}`,
      ms(t.dnsMs),
      ms(t.connectMs),
      ms(t.tlsMs),
      ms(t.ttfbMs),
      ms(t.totalMs),
      `${t.bytes}`,
    ];
  });
  const m = diagnosis.medians;
  rows.push(['median', '', ms(m.dnsMs), ms(m.connectMs), ms(m.tlsMs), '', ms(m.totalMs), '']);
  const widths = COLUMNS.map((c, i) =>
    Math.max(c.length, ...rows.map((r) => (r.length > 3 ? (r[i] ?? '').length : 0))),
  );
  const line = (cells: readonly string[]) =>
    cells.length <= 3 && cells[1] === 'error'
      ? `${cells[0]?.padStart(widths[0] ?? 0)}  error: ${cells[2]}`
      : cells
          .map((cell, i) => (i === cells.length - 1 ? cell : cell.padStart(widths[i] ?? 0)))
          .join('  ');
  return [
    `probe ${url}: ${samples.length} requests`,
    line(COLUMNS),
    ...rows.map(line),
    `median server wait ${ms(m.waitMs)} (first byte after the handshakes), body ${ms(m.bodyMs)}`,
    `verdict: ${VERDICT_TEXT[diagnosis.verdict]} — ${diagnosis.explanation}`,
    '',
  ].join('\n');
}

function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}
