import type { Generated } from 'kysely';

/** Row shapes. Times are ISO-8601 text and booleans 0/1 integers, so both dialects store them alike. */
export interface OrganisationTable {
  id: string;
  name: string;
  created_at: string;
}

export type Role = 'owner' | 'admin' | 'member' | 'viewer';

export interface UserTable {
  id: string;
  organisation_id: string;
  email: string;
  password_hash: string | null;
  first_name: string;
  last_name: string;
  role: Role;
  status: string;
  email_verified_at: string | null;
  language: string;
  department: string | null;
  office_location: string | null;
  created_at: string;
}

export interface RefreshTokenTable {
  id: string;
  user_id: string;
  token_hash: string;
  family_id: string;
  expires_at: string;
  revoked_at: string | null;
  created_at: string;
}

export interface DatasetTable {
  id: string;
  organisation_id: string;
  name: string;
  category: string;
  training_type: string;
  data_type: string;
  type: string;
  comment: string;
  file_name: string;
  file_size: number;
  encoding: string;
  delimiter: string;
  row_count: number;
  column_count: number;
  schema_json: string;
  stats_json: string;
  datetime_column: string | null;
  preprocessed: number;
  preprocess_history: string;
  parent_dataset_name: string | null;
  statistics_job_id: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export type JobState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface JobTable {
  id: string;
  organisation_id: string;
  kind: string;
  state: JobState;
  progress: number;
  message: string;
  log: string;
  spec_json: string;
  result_json: string | null;
  error: string | null;
  subject_type: string | null;
  subject_id: string | null;
  created_by: string | null;
  attempts: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** The request that created the job (its x-request-id); null for jobs started by the server itself. */
  request_id: Generated<string | null>;
  /** The W3C trace context ({traceparent, tracestate}) the job carries to the engine; null while tracing is off. */
  trace_json: Generated<string | null>;
  seq: Generated<number>;
}

export interface Database {
  organisations: OrganisationTable;
  users: UserTable;
  refresh_tokens: RefreshTokenTable;
  datasets: DatasetTable;
  jobs: JobTable;
}
