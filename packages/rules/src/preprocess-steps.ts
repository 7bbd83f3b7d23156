// Every preprocessing step kind and its methods: the same catalogue as engine/mitate_engine/preprocessing/steps/
// (an engine test holds catalogue.json to it). The server's request schemas and the web app's step editor read this.
export const STEP_METHODS = {
  outliers: ['iqr', 'zscore', 'hampel'],
  missing: ['drop_rows', 'drop_columns', 'mean', 'median', 'mode', 'constant', 'ffill', 'bfill', 'linear', 'time'],
  scaling: ['standard', 'minmax', 'robust'],
  computed: ['expression'],
  window: ['mean', 'std', 'min', 'max', 'median', 'lag'],
  columns: ['drop', 'rename', 'retype'],
  filter: ['keep'],
  sort: ['datetime', 'column'],
} as const;
