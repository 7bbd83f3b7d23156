import path from 'node:path';
import { defineConfig } from 'vitest/config';

// The shared rules from their source (as tsconfig.json's paths says for tsc and tsx): found the same way whether or
// not node_modules links the workspace.
const rules = path.resolve(import.meta.dirname, '../packages/rules/src/index.ts');

export default defineConfig({
  resolve: { alias: { '@mitate/rules': rules } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 900_000,
    hookTimeout: 900_000,
    // Suites start Python worker processes; on two cores, one file at a time is fastest and steadiest.
    fileParallelism: false,
    pool: 'forks',
  },
});
