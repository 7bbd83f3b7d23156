/** @mitate/rules: pure rules the web app and the server both apply (no Node, browser or server imports). */
export * from './csv-cell.js';
export * from './csv-records.js';
export * from './dataset-kinds.js';
export * from './decimals.js';
export * from './password.js';
export * from './test-result-parts.js';
export * from './thresholds.js';
export * from './preprocess-steps.js';
