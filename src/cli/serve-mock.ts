import { writeFile } from 'node:fs/promises';
import { seededRandom } from '../random.js';
import { familyModel } from '../sim/family/build.js';
import { describeServer } from '../sim/family/describe.js';
import { FamilyModel } from '../sim/family/family-model.js';
import type { FamilyServer } from '../sim/family/server.js';
import { drawFrom, type ServerSet } from '../sim/family/sets.js';
import { createModel, MODEL_CATALOG, parseModelParams } from '../sim/models/index.js';
import { startMockServer } from '../testing/mock-server.js';
import { UsageError } from './usage-error.js';

/** Options of `ratewise serve-mock`, as commander parses them. */
export interface ServeMockOptions {
  model?: string;
  rate?: string;
  latencyMs?: string;
  /** The former name of `latencyMs`, kept for scripts that use it. */
  latency?: string;
  port: number;
  param: string[];
  seed: number;
  json?: boolean;
  list?: boolean;
  familySeed?: number;
  familyIndex?: number;
  /** The set `familyIndex` draws from. */
  familySet?: ServerSet;
  record?: string;
}

/** Runs `ratewise serve-mock` until SIGINT/SIGTERM; resolves with the exit code. */
export async function serveMockCommand(options: ServeMockOptions): Promise<number> {
  if (options.list) {
    process.stdout.write(catalogText());
    return 0;
  }
  const family = familyServer(options);
  if (options.model === undefined && family === undefined)
    throw new UsageError('serve-mock needs --model <name> (see --list) or --family-index <i>');
  const model = family ? familyModel(family) : buildModel(options.model as string, options);
  const server = await startMockServer({ model, port: options.port, host: '127.0.0.1' });
  const name = family ? describeServer(family) : model.name;
  process.stdout.write(
    options.json
      ? `${JSON.stringify({ url: server.url, port: server.port, model: model.name, ...(family ? { family } : {}) })}\n`
      : `ratewise serve-mock: ${name} on ${server.url} (stats at ${server.url}/__stats); Ctrl-C to stop\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  const stats = server.stats();
  await server.close();
  if (options.record !== undefined && model instanceof FamilyModel) {
    await writeFile(options.record, JSON.stringify({ server: family, record: model.record }));
  }
  if (!options.json) {
    process.stderr.write(
      `ratewise serve-mock: stopped after ${stats.arrivals} requests ${JSON.stringify(stats.byStatus)}\n`,
    );
  }
  return 0;
}

/** The family server asked for, if any; `--family-seed` defaults to 1. */
function familyServer(options: ServeMockOptions): FamilyServer | undefined {
  if (options.familyIndex === undefined) {
    if (
      options.familySeed !== undefined ||
      options.record !== undefined ||
      options.familySet !== undefined
    )
      throw new UsageError('--family-seed, --family-set and --record go with --family-index <i>');
    return undefined;
  }
  if (options.model !== undefined) throw new UsageError('give --model or --family-index, not both');
  return drawFrom(options.familySet ?? 'family', options.familySeed ?? 1, options.familyIndex);
}

function buildModel(spec: string, options: ServeMockOptions) {
  try {
    const params: Record<string, string> = parseModelParams(options.param);
    if (options.rate !== undefined) params.rate = options.rate;
    const latencyMs = options.latencyMs ?? options.latency;
    if (latencyMs !== undefined) params.latencyMs = latencyMs;
    return createModel(spec, params, seededRandom(options.seed));
  } catch (error) {
    throw new UsageError(asCommandLine(error instanceof Error ? error.message : String(error)));
  }
}

/** The command-line flag that sets a model option. */
const FLAGS: Readonly<Record<string, string>> = {
  model: '--model',
  rate: '--rate',
  latencyMs: '--latency-ms',
};

/**
 * A model's option error in the words of the command line: the flag that
 * set the value instead of the internal owner (`createModel: option
 * \`model\` must be …` becomes `--model: must be …`).
 */
function asCommandLine(message: string): string {
  const flag = (name: string) => FLAGS[name] ?? `--param ${name}`;
  return message
    .replace(/^[\w.]+: option `([\w.]+)` must be/, (_, name: string) => `${flag(name)}: must be`)
    .replace(
      /^[\w.]+: unknown option `([\w.]+)` \(known options: /,
      (_, name: string) => `--param ${name}: not a parameter of this model (its parameters: `,
    );
}

function catalogText(): string {
  const lines: string[] = [];
  for (const entry of MODEL_CATALOG) {
    lines.push(`${entry.name}: ${entry.description}`);
    for (const param of entry.params) {
      const choices = param.choices ? ` (${param.choices.join(' | ')})` : '';
      lines.push(`    ${param.name}: ${param.description}${choices}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
