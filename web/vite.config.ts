import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import type { Reporter } from 'vitest/reporters';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { precompress } from './build/precompress';

// The API server (SPEC: server/ on 8080). MITATE_API_URL points the dev proxy elsewhere (e.g. dev/mock-api.mjs).
const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
const api = env.MITATE_API_URL ?? 'http://127.0.0.1:8080';

/** Prints the plain closing line CI reads: 'web: N passed, N failed, N skipped'. */
const plainSummary: Reporter = {
  onTestRunEnd(testModules, unhandledErrors) {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const m of testModules) {
      if (m.state() === 'failed' && [...m.children.allTests()].length === 0) failed++;
      for (const t of m.children.allTests()) {
        const state = t.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
    }
    process.stdout.write(`\nweb: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  },
};

// The DataGrid's all-locales entry keeps every language (each file runs code at import, so nothing is
// tree-shaken): point it at the one Japanese file the app uses. Types still come from the package.
const gridJa = path.join(path.dirname(createRequire(import.meta.url).resolve('@mui/x-data-grid/package.json')), 'locales', 'jaJP.mjs');

// The shared rules (packages/rules) from their source, as tsconfig.json's paths says for tsc: the same files
// whether or not node_modules links the workspace.
const rules = fileURLToPath(new URL('../packages/rules/src/index.ts', import.meta.url));

export default defineConfig({
  plugins: [react(), precompress()],
  resolve: {
    alias: [
      { find: /^@mui\/x-data-grid\/locales$/, replacement: gridJa },
      { find: /^@mitate\/rules$/, replacement: rules },
    ],
  },
  server: {
    port: 5173,
    proxy: {
      '/api': { target: api, changeOrigin: true },
      '/account': { target: api, changeOrigin: true },
    },
  },
  preview: {
    proxy: {
      '/api': { target: api, changeOrigin: true },
      '/account': { target: api, changeOrigin: true },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The manifest lets the bundle budget check (scripts/bundle-budget.mjs) follow what a route loads.
    manifest: true,
    chunkSizeWarningLimit: 1500,
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    css: false,
    testTimeout: 300_000,
    reporters: ['default', plainSummary],
  },
});
