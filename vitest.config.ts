import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 20_000,
    pool: 'threads',
    // One test file per core and one more: a third of the suite's time is spent waiting on real
    // servers, Redis, the CLI's processes and a browser, and vitest's default (a core less than
    // the machine has) ran the suite one file at a time on CI's two cores.
    maxWorkers: availableParallelism() + 1,
    setupFiles: ['test/setup.ts'],
  },
});
