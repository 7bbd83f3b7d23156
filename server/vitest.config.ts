import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 900_000,
    hookTimeout: 900_000,
    // Suites start Python worker processes; on two cores, one file at a time is fastest and steadiest.
    fileParallelism: false,
    pool: 'forks',
  },
});
