import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { apiBlob } from '../../api/client';
import { answer, http, per } from '../../api/typed';
import type { components } from '../../api/schema';
import type { ProjectArea } from '../../components/useProjectActions';
import { saveBlob } from '../../lib/browser';

export const PROJECT_TYPES = ['regression', 'soft_sensor', 'discriminant_analysis', 'clustering', 'dimensional_compression'] as const;
export type ProjectType = (typeof PROJECT_TYPES)[number];

/** SPEC §7 prefix and SPEC §2 web routes of each type. */
export const TYPE_INFO: Record<ProjectType, { prefix: string; details: string; report: string; result?: string; supervised: boolean; targetOptional?: boolean; predictionReport: string }> = {
  regression: { prefix: 'regress', details: 'regress/details', report: 'regress/result/report', result: 'regression/result', supervised: true, predictionReport: 'regression/report' },
  soft_sensor: { prefix: 'softsensor', details: 'soft-sensor/details', report: 'soft-sensor/report', supervised: true, predictionReport: 'report/soft-sensor' },
  discriminant_analysis: {
    prefix: 'discriminant/analysis',
    details: 'discriminant-analysis/details',
    report: 'discriminant-analysis/report',
    result: 'discriminant-analysis/result',
    supervised: true,
    predictionReport: 'discriminant-analysis/report',
  },
  clustering: { prefix: 'clustering', details: 'clustering/details', report: 'clustering/report', supervised: false, predictionReport: 'clustering/report' },
  dimensional_compression: {
    prefix: 'dimensional/compression',
    details: 'dimensional-compression/details',
    report: 'dimensional-compression/report',
    result: 'dimensional_compression/result',
    supervised: false,
    targetOptional: true,
    predictionReport: 'report/dimensional-compression',
  },
};

const enc = encodeURIComponent;
export const isProjectType = (t: string | undefined): t is ProjectType => !!t && (PROJECT_TYPES as readonly string[]).includes(t);
export const registerPath = (type: string, datasetId: string) => `/training/${type}/register/${enc(datasetId)}`;
// time-series projects live in their own area (features/timeseries) but share this list
const isTimeSeries = (type: string) => type.startsWith('time_series_anomaly_detection');
// image projects (features/images) too: OK/NG analysis and classification of an image dataset
export const IMAGE_PROJECT_TYPES = ['analysis', 'classification'] as const;
export const isImageProject = (type: string) => (IMAGE_PROJECT_TYPES as readonly string[]).includes(type);
export const NEW_PROJECT_TYPES = [...PROJECT_TYPES, 'time_series_anomaly_detection_unsupervised', 'time_series_anomaly_detection_supervised', ...IMAGE_PROJECT_TYPES] as const;
export const detailsPath = (type: string, id: string) => `/training/${TYPE_INFO[type as ProjectType]?.details ?? (isTimeSeries(type) ? 'time-series/details' : 'details')}/${enc(id)}`;
export const reportPath = (type: string, id: string, model: string) => `/training/${TYPE_INFO[type as ProjectType]?.report ?? 'result/report'}/${enc(id)}/${enc(model)}`;

type Schemas = components['schemas'];
// Answers, as the server declares them (server/src/features/training/responses.ts).
export type ParamSpec = Schemas['ParamSpec'];
export type AlgorithmSpec = Schemas['AlgorithmSpec'];
export type Catalogue = Schemas['TrainingCatalogue'];
export type Model = Schemas['TrainingModel'];
/** One figure of a model's metrics by name (a tabular model's, or an image model's named figures). */
export function metricOf(m: Pick<Model, 'metrics'>, key: string): unknown {
  const figures: Record<string, unknown> = m.metrics ?? {};
  return figures[key];
}
// the training area's pages show the tabular types (the list also holds time-series and image projects)
export type Project = Schemas['TrainingProject'] & { project_type: ProjectType };
/** A project of the list: any kind (table, time series, images). */
export type ListedProject = Schemas['TrainingProject'];
const isTable = <P extends { project_type: string }>(p: P): p is P & { project_type: ProjectType } => isProjectType(p.project_type);
/** A project answered to this area's calls is one of the table types; another kind has its own area's calls. */
function tableProject<P extends { project_type: string }>(p: P): P & { project_type: ProjectType } {
  if (!isTable(p)) throw new TypeError(`project type ${p.project_type} is not a table type`);
  return p;
}
/** How far a model's figures can be trusted (engine trainer.evaluation): below `threshold` test rows, or with no test
 * set, repeated cross-validation is the headline. */
export type ReportData = Schemas['ModelReport'] & { project: Project };

export interface RegisterBody {
  name: string;
  target_variables: string[];
  feature_variables: string[];
  split_ratio: number;
  split_time?: string | null;
  cross_validation: string | number;
  evaluation?: 'holdout' | 'cv_only';
  significance_level: number;
  number_of_trials: number;
  auto_tune: boolean;
  balance_data: boolean;
  variance_threshold: number;
  lags: number[];
  windows: number[];
  models: { algorithm: string; params: Record<string, number | string | boolean | null> }[];
}


export const trainingKeys = {
  catalogue: ['training', 'catalogue'] as const,
  list: (q: string, type: string, page: number, size: number) => ['training', 'list', q, type, page, size] as const,
  project: (id: string) => ['training', 'project', id] as const,
  report: (id: string, key: string) => ['training', 'report', id, key] as const,
};

/** The algorithms with names, parameter labels and help in the reader's language (one cached copy per language). */
export function useCatalogue() {
  const { i18n } = useTranslation();
  return useQuery({ queryKey: [...trainingKeys.catalogue, i18n.language], queryFn: ({ signal }) => answer(http.GET('/api/training/catalogue', per({ signal }))), staleTime: Infinity });
}

export function useProjectList(query: string, type: string, page: number, pageSize: number) {
  return useQuery({
    queryKey: trainingKeys.list(query, type, page, pageSize),
    queryFn: ({ signal }) => answer(http.GET('/api/project/list/', { params: { query: { query, project_type: type || undefined, page, page_size: pageSize } }, ...per({ signal }) })),
    refetchInterval: (q) => (q.state.data?.items.some((p) => p.training_state === 'training') ? 3000 : false),
  });
}

/** A project of any kind (train/result serves them all), polled every 1.5 s while it trains (SPEC §4). */
const projectQuery = (id: string | undefined) => ({
  queryKey: trainingKeys.project(id ?? ''),
  queryFn: ({ signal }: { signal: AbortSignal }) => answer(http.GET('/api/train/result/{id}', { params: { path: { id: id! } }, ...per({ signal }) })),
  enabled: !!id,
  refetchInterval: (q: { state: { data?: ListedProject } }) => (q.state.data?.training_state === 'training' ? 1500 : false),
});
export const useProject = (id: string | undefined) => useQuery(projectQuery(id));
/** The same project read by this area's pages: a table type's, else none (another kind has its own area's pages). */
export const useTableProject = (id: string | undefined) => useQuery({ ...projectQuery(id), select: (p: ListedProject) => (isTable(p) ? p : undefined) });

export function useReport(type: ProjectType | undefined, id: string | undefined, key: string | undefined) {
  const { i18n } = useTranslation(); // the algorithm's name and parameter labels come in the reader's language
  return useQuery({
    queryKey: [...trainingKeys.report(id ?? '', key ?? ''), i18n.language],
    queryFn: async ({ signal }): Promise<ReportData> => {
      const r = await answer(http.POST(TYPE_PATHS[type ?? 'regression'].report, { params: { path: { id: id! } }, body: { model_key: key! }, ...per({ signal }) }));
      return { ...r, project: tableProject(r.project) };
    },
    enabled: !!id && !!key && !!type,
    refetchInterval: (q) => (q.state.data?.report?.pending ? 2000 : false),
  });
}

/** The calls each table type makes under its SPEC §7 prefix (TYPE_INFO). */
const TYPE_PATHS = {
  regression: { register: '/api/regress/register/{id}', report: '/api/regress/report/{id}', delete: '/api/regress/project/delete/{id}' },
  soft_sensor: { register: '/api/softsensor/register/{id}', report: '/api/softsensor/report/{id}', delete: '/api/softsensor/project/delete/{id}' },
  discriminant_analysis: { register: '/api/discriminant/analysis/register/{id}', report: '/api/discriminant/analysis/report/{id}', delete: '/api/discriminant/analysis/project/delete/{id}' },
  clustering: { register: '/api/clustering/register/{id}', report: '/api/clustering/report/{id}', delete: '/api/clustering/project/delete/{id}' },
  dimensional_compression: { register: '/api/dimensional/compression/register/{id}', report: '/api/dimensional/compression/report/{id}', delete: '/api/dimensional/compression/project/delete/{id}' },
} as const satisfies Record<ProjectType, Record<'register' | 'report' | 'delete', `/api/${string}/{id}`>>;

export const registerProject = async (type: ProjectType, datasetId: string, body: RegisterBody) =>
  tableProject(await answer(http.POST(TYPE_PATHS[type].register, { params: { path: { id: datasetId } }, body })));
export const trainProject = async (id: string) => tableProject(await answer(http.POST('/api/train/model/{id}', { params: { path: { id } }, body: {} })));
export const renameProject = (id: string, name: string) => answer(http.PUT('/api/project/{id}', { params: { path: { id } }, body: { name } }));
/** Each area deletes its own projects: the table types under their SPEC §7 prefix, images at project/delete, time series under timeseries/. */
/** Rename and Delete on a tabular project's page (ProjectFrame); the delete call depends on the project type. */
export const tableProjects: ProjectArea<{ project_type: string }> = {
  key: trainingKeys.project,
  rename: renameProject,
  remove: (id, p) => deleteProject(p.project_type, id),
  lists: ['training', 'list'],
  listPath: '/training',
};

export const deleteProject = (type: string, id: string) => {
  const path = { params: { path: { id } } };
  if (isProjectType(type)) return answer(http.DELETE(TYPE_PATHS[type].delete, path));
  return answer(isImageProject(type) ? http.DELETE('/api/project/delete/{id}', path) : http.DELETE('/api/timeseries/project/delete/{id}', path));
};

export async function downloadModel(p: Project, m: Model) {
  const { blob, fileName } = await apiBlob(`/api/${TYPE_INFO[p.project_type].prefix}/model/download/${enc(p.project_id)}/${enc(m.algorithm)}/${m.model_index}`, `${p.name}-${m.model_key}.zip`);
  saveBlob(blob, fileName);
}

export async function downloadReport(p: Project, m: Model) {
  const { blob, fileName } = await apiBlob(`/api/${TYPE_INFO[p.project_type].prefix}/report/download/${enc(p.project_id)}/${enc(m.model_key)}`, `${p.name}-${m.model_key}-report.html`);
  saveBlob(blob, fileName);
}

/** The report as a PDF in the reader's language (Accept-Language follows the app's language). */
export async function downloadReportPdf(p: Project, m: Model) {
  const { blob, fileName } = await apiBlob(`/api/${TYPE_INFO[p.project_type].prefix}/report/pdf/${enc(p.project_id)}/${enc(m.model_key)}`, `${p.name}-${m.model_key}-report.pdf`);
  saveBlob(blob, fileName);
}
