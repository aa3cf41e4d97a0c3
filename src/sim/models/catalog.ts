import { InvalidOptionError } from '../../errors.js';
import { type Random, seededRandom } from '../../random.js';
import { MODEL_CATALOG, type ModelEntry, type ModelParam } from './catalog-entries.js';
import { combine } from './combine.js';
import type { ServerModel } from './model.js';
import { parseRateInput, type RateStep } from './rate-schedule.js';

/** Parameter values: text from the command line, or already-typed values. */
export type ModelParams = Readonly<Record<string, string | number | readonly RateStep[]>>;

/** The names `createModel` accepts (join several with `+` to layer them). */
export const MODEL_NAMES: readonly string[] = MODEL_CATALOG.map((entry) => entry.name);

/**
 * Builds a model from its name and parameters. `spec` is a catalog name, or
 * several joined with `+` to layer them with {@link combine} (e.g.
 * `fixed-window+ramp`). A parameter applies to every layer that has it;
 * prefix it with a layer's name to aim it (`fixed-window.latencyMs=0`).
 * Text values are converted by the parameter's kind and validated by the model,
 * so errors name the option, the value and what was expected.
 */
export function createModel(
  spec: string,
  params: ModelParams = {},
  random: Random = seededRandom(0),
): ServerModel {
  const entries = spec.split('+').map((name) => findEntry(name.trim()));
  const options = entries.map(() => ({ random }) as Record<string, unknown>);
  for (const [key, value] of Object.entries(params)) {
    const dot = key.lastIndexOf('.');
    const layer = dot === -1 ? undefined : key.slice(0, dot);
    const name = key.slice(dot + 1);
    let used = false;
    for (const [i, entry] of entries.entries()) {
      const param = entry.params.find((p) => p.name === name);
      if (param === undefined || (layer !== undefined && layer !== entry.name)) continue;
      (options[i] as Record<string, unknown>)[name] = convert(param, value);
      used = true;
    }
    if (!used) throw InvalidOptionError.unknown('createModel', key, knownKeys(entries));
  }
  const models = entries.map((entry, i) => entry.create(options[i] as Record<string, unknown>));
  return models.length === 1 ? (models[0] as ServerModel) : combine(...models);
}

/** Parses `key=value` pairs (as given on a command line) into {@link ModelParams}. */
export function parseModelParams(pairs: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw InvalidOptionError.invalid('createModel', 'param', pair, 'key=value');
    params[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
  }
  return params;
}

function findEntry(name: string): ModelEntry {
  const entry = MODEL_CATALOG.find((candidate) => candidate.name === name);
  if (entry !== undefined) return entry;
  const expected = `one of ${MODEL_NAMES.join(', ')} (or several joined with +)`;
  throw InvalidOptionError.invalid('createModel', 'model', name, expected);
}

function convert(param: ModelParam, value: ModelParams[string]): unknown {
  if (typeof value !== 'string') return value;
  if (param.kind === 'rate') return parseRateInput(value);
  if (param.kind === 'number') return parseNumber(value);
  return value;
}

/** A number (`Infinity` allowed), or the text unchanged so the model's check reports it. */
function parseNumber(text: string): number | string {
  const trimmed = text.trim();
  if (trimmed === 'Infinity') return Infinity;
  return /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : text;
}

function knownKeys(entries: readonly ModelEntry[]): string[] {
  const keys = entries.flatMap((entry) => entry.params.map((param) => param.name));
  if (entries.length > 1) {
    keys.push(...entries.flatMap((e) => e.params.map((p) => `${e.name}.${p.name}`)));
  }
  return [...new Set(keys)];
}
