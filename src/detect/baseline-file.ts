import { describe } from '../errors.js';

/**
 * A host's latency floor, captured while the target was quiet and we were
 * polite: the percentiles of the fastest window of requests, in ms. Plain and
 * serialisable — it is what the CLI stores as one JSON file per host.
 */
export interface LatencyBaseline {
  /** The host it was measured against, e.g. `store.example.com`. */
  host: string;
  /** Median latency of the fastest window, ms. */
  p50: number;
  /** 95th percentile of the fastest window, ms (the figure alarms compare against). */
  p95: number;
  /** 99th percentile of the fastest window, ms. */
  p99: number;
  /** Latencies in that window. */
  samples: number;
  /** When it was captured, ISO 8601 (e.g. `2026-01-31T04:00:00.000Z`). */
  capturedAt: string;
}

/** The outcome of {@link parseBaseline}: a baseline, or a message saying what is wrong. */
export type ParsedBaseline = { ok: true; baseline: LatencyBaseline } | { ok: false; error: string };

const FIELDS = ['host', 'p50', 'p95', 'p99', 'samples', 'capturedAt'] as const;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Reads a baseline file's content (a JSON string) or an already parsed value,
 * checking every field. Never throws: a bad file yields `{ ok: false, error }`
 * whose message lists each problem with the field, the value and what was
 * expected. Unknown fields are errors too, so a typo such as `p59` is caught.
 */
export function parseBaseline(input: unknown): ParsedBaseline {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (error) {
      return { ok: false, error: `baseline: not valid JSON (${(error as Error).message})` };
    }
  }
  const problems = baselineProblems(value);
  if (problems.length > 0) return { ok: false, error: `baseline: ${problems.join('; ')}` };
  const b = value as LatencyBaseline;
  const baseline = { host: b.host, p50: b.p50, p95: b.p95, p99: b.p99, samples: b.samples };
  return { ok: true, baseline: { ...baseline, capturedAt: b.capturedAt } };
}

/** Everything wrong with `value` as a {@link LatencyBaseline}; empty when it is valid. */
export function baselineProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [`expected a JSON object, got ${describe(value)}`];
  }
  const record = value as Record<string, unknown>;
  const problems: string[] = [];
  const unknown = Object.keys(record).filter((k) => !(FIELDS as readonly string[]).includes(k));
  for (const key of unknown) {
    problems.push(`unknown field "${key}" (known fields: ${FIELDS.join(', ')})`);
  }
  const expect = (field: string, ok: boolean, expected: string): void => {
    if (!ok) problems.push(`"${field}" must be ${expected}, got ${describe(record[field])}`);
  };
  const { host, p50, p95, p99, samples, capturedAt } = record;
  expect('host', typeof host === 'string' && host.trim() !== '', 'a non-empty string');
  expect('p50', isMs(p50) && p50 >= 0, 'a finite number of ms >= 0');
  expect('p95', isMs(p95) && p95 > 0, 'a finite number of ms > 0');
  expect('p99', isMs(p99) && p99 >= 0, 'a finite number of ms >= 0');
  expect('samples', Number.isSafeInteger(samples) && (samples as number) >= 1, 'an integer >= 1');
  expect('capturedAt', isIsoDate(capturedAt), 'an ISO 8601 date-time such as 2026-01-31T04:00:00Z');
  if (isMs(p50) && isMs(p95) && isMs(p99) && !(p50 <= p95 && p95 <= p99)) {
    problems.push(`percentiles must satisfy p50 <= p95 <= p99, got ${p50}, ${p95}, ${p99}`);
  }
  return problems;
}

function isMs(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isIsoDate(value: unknown): boolean {
  return typeof value === 'string' && ISO_DATE.test(value) && Number.isFinite(Date.parse(value));
}
