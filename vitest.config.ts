import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 20_000,
    pool: 'threads',
    // One test file per core: vitest's default (a core less than the machine has) ran the suite
    // one file at a time on CI's two cores, while a third of its time is spent waiting on real
    // servers, Redis, the CLI's processes and a browser. Not more than the cores: the README's
    // command-line block (a real-time crawl beside benches) then shares its core with two
    // simulations, and on a loaded machine it outran its 120 s.
    maxWorkers: availableParallelism(),
    setupFiles: ['test/setup.ts'],
  },
});
