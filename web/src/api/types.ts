/** Shapes of the API contract (server/src is the source of truth; keep in step). */

export type Role = 'owner' | 'admin' | 'member' | 'viewer';

export interface Me {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  name: string;
  role: Role;
  status: string;
  language: string | null;
  department: string | null;
  office_location: string | null;
  organisation: { id: string; name: string } | null;
  /** where to load my photo from (with the bearer), or null */
  photo?: string | null;
  links: { visualizer_url: string | null; test_site_url: string | null; show_test_site: boolean };
}

export interface Member {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  role: Role | string;
  status: string;
  created_at: string;
  photo?: string | null;
}

export interface Page<T> {
  items: T[];
  total: number;
}

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
export type TrainingType = (typeof TRAINING_TYPES)[number];

export const DATA_TYPES = ['training_data', 'inference_data'] as const;
export type DataType = (typeof DATA_TYPES)[number];

export const DATASET_TYPES = ['supervised', 'unsupervised', 'softsensor'] as const;
export type DatasetType = (typeof DATASET_TYPES)[number];

export type JobState = 'none' | 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface PreprocessStep {
  process_type: string;
  action_name: string;
  changes: unknown;
  modified_at: string;
}

export interface Dataset {
  id: string;
  name: string;
  category: string | null;
  training_type: TrainingType | string | null;
  data_type: DataType | string;
  type: DatasetType | string;
  comment: string | null;
  file_name: string;
  file_size: number;
  encoding: 'utf-8' | 'utf-8-sig' | 'cp932' | string;
  delimiter: string;
  row_count: number;
  column_count: number;
  datetime_column: string | null;
  preprocessed: boolean;
  preprocess_history: PreprocessStep[];
  parent_dataset_name: string | null;
  created_at: string;
  updated_at: string;
  files: { original: string; parquet: string };
  statistics: { state: JobState; job_id: string | null };
}

export type ColumnType = 'integer' | 'float' | 'string' | 'boolean' | 'datetime' | 'date' | 'other';

export interface DatasetColumn {
  name: string;
  type: ColumnType;
  dtype: string;
  count?: number | null;
  missing?: number | null;
  unique?: number | null;
  min?: number | string | null;
  max?: number | string | null;
  mean?: number | null;
  std?: number | null;
}

export interface DatasetWithColumns extends Dataset {
  columns: DatasetColumn[];
}

export type Cell = string | number | boolean | null;

export interface DataPage {
  columns: string[];
  rows: Cell[][];
  total: number;
  page: number;
  page_size: number;
}

export interface DatasetUpdate {
  name: string;
  category: string;
  comment: string;
  training_type: string;
  data_type: string;
  type: string;
}

export interface ColumnStatistics {
  name: string;
  dtype: string;
  kind: 'numeric' | 'categorical' | 'boolean' | 'datetime';
  count: number | null;
  missing: number | null;
  unique: number | null;
  mean: number | null;
  std: number | null;
  min: number | string | null;
  q1: number | null;
  median: number | null;
  q3: number | null;
  max: number | string | null;
  skewness: number | null;
  kurtosis: number | null;
  zeros: number | null;
  top: { value: string | number | boolean | null; count: number }[] | null;
  histogram: { edges: number[]; counts: number[] } | null;
}

export interface StatisticsResult {
  row_count: number;
  column_count: number;
  generated_at: string;
  columns: ColumnStatistics[];
}

export interface StatisticsJob {
  job_id: string | null;
  state: JobState;
  progress: number;
  message: string | null;
  error: string | null;
  result: StatisticsResult | null;
}

/** The organisation's compute service: its own share of the shared worker pool. */
export interface ServiceStatus {
  mode: 'local' | 'bullmq';
  /** Its jobs run: the pool runs and the organisation has not paused its share. */
  running: boolean;
  /** The organisation paused its share (POST /api/services/stop; resumed by POST /api/services/start). */
  paused?: boolean;
  /** The shared pool runs (platform administrators start and stop it). */
  pool_running?: boolean;
  workers: number;
  busy?: number;
  /** The organisation's own jobs. */
  queued: number;
  active: number;
  max_upload_mb: number;
}
