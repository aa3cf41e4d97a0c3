import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const OPTIONAL_PEERS = /^(axios|got|ky|crawlee|@crawlee\/|playwright|prom-client|@opentelemetry\/)/;

/** Every bare module specifier reachable from `entry` through relative imports (static and dynamic). */
function externalImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const external = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
      const specifier = match[1] as string;
      if (specifier.startsWith('.')) {
        queue.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      } else external.add(specifier);
    }
  }
  return external;
}

describe('the ratewise entry point', () => {
  it('loads no optional peer dependency (each integration has its own subpath)', () => {
    const external = [...externalImports(resolve('src/index.ts'))];
    expect(external.filter((name) => OPTIONAL_PEERS.test(name))).toEqual([]);
    expect(external).toContain('undici'); // the walk does reach the client
  });

  it('the axios and got entries reach their library only through type imports', () => {
    for (const entry of ['src/integrations/axios.ts', 'src/integrations/got.ts']) {
      const source = readFileSync(entry, 'utf8');
      expect(source).not.toMatch(/^import (?!type)[^;]*from '(axios|got)'/m);
    }
  });
});
