// A dataset's kinds (SPEC §3), one list for the server's checks and the web app's choices.
export const TRAINING_TYPES = [
  'regression',
  'classification',
  'analysis',
  'soft_sensor',
  'time_series_anomaly_detection_supervised',
  'time_series_anomaly_detection_unsupervised',
  'dimensional_compression',
  'discriminant_analysis',
  'clustering',
  'statistical_analysis',
] as const;
export const DATA_TYPES = ['training_data', 'inference_data'] as const;
export const DATASET_TYPES = ['supervised', 'unsupervised', 'softsensor'] as const;
