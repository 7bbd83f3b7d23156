// The OK/NG threshold rules moved to @mitate/rules (packages/rules/src/thresholds.ts). This path stays only because
// web/src/features/images/api.ts still imports it (another change was open there at the move): point that import at
// '@mitate/rules' and delete this file.
export { rates } from '@mitate/rules';
