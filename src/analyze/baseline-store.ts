import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type LatencyBaseline,
  type ParsedBaseline,
  parseBaseline,
} from '../detect/baseline-file.js';

/** The file a host's baseline is kept in: the host with anything but `A-Z a-z 0-9 . -` as `_`, plus `.json`. */
export function baselineFileName(host: string): string {
  return `${host.replace(/[^A-Za-z0-9.-]/g, '_')}.json`;
}

/** Temporary files written by this process so far (keeps two saves of one host apart). */
let temporaries = 0;

/**
 * Writes `baseline` as `<dir>/<host>.json` (pretty JSON), creating `dir`;
 * returns the path. The file is written beside its final name and renamed
 * over it, so a reader (or a crash) never sees half a baseline.
 */
export async function saveBaseline(dir: string, baseline: LatencyBaseline): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, baselineFileName(baseline.host));
  const temporary = `${path}.${process.pid}.${++temporaries}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(baseline, null, 2)}\n`);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return path;
}

/** What {@link loadBaseline} found. */
export type LoadedBaseline = ParsedBaseline | { ok: false; missing: true; error: string };

/** Reads `<dir>/<host>.json`; a missing file is `missing`, a bad one carries `parseBaseline`'s message. */
export async function loadBaseline(dir: string, host: string): Promise<LoadedBaseline> {
  const path = join(dir, baselineFileName(host));
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, missing: true, error: `no baseline file ${path}` };
    return { ok: false, error: `${path}: ${(error as Error).message}` };
  }
  const parsed = parseBaseline(text);
  return parsed.ok ? parsed : { ok: false, error: `${path}: ${parsed.error}` };
}
