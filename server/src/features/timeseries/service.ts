import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../http/errors.js';
import type { Lang } from '../../i18n/messages.js';
import type { DatasetService } from '../datasets/service.js';
import { datasetSchema } from '../datasets/stored.js';
import { M as TM } from '../training/messages.js';
import type { RunService } from '../training/runs.js';
import type { TrainingService } from '../training/service.js';
import { M } from './messages.js';
import { normalDefault, validate } from './validate.js';
import { suggestDrift } from './drift.js';
import { contributions, report, series, signals } from './score-views.js';
import { register, saveThreshold, threshold, train } from './runs.js';
import { reportFile } from './report-file.js';
import './db.js';
import { makeTsBase, type TsDeps } from './base.js';
import { tsadTrainJob } from './jobs.js';
import { thresholdRepo } from './repo.js';

// what other areas import from here (moved beside it, issue 32)
export { isTsType } from './detectors.js';

export function makeTimeSeriesService(ctx: AppContext, { datasets, training, runs }: { datasets: DatasetService; training: TrainingService; runs: RunService }) {
  const deps = makeTsBase(ctx, { datasets, training, runs });
  const { db, getProject, savedThresholds, view, doneModel } = deps;
  const on = <A extends unknown[], R>(f: (d: TsDeps, ...a: A) => R) => (...a: A): R => f(deps, ...a);

  return {
    getProject,
    view,
    /** Installed once at start-up (services.ts): model rows follow the detector training job's events. */
    installJobHandlers: () => runs.installModelEventHandlers(tsadTrainJob),
    validate: on(validate),
    savedThresholds,
    /** The normal period the wizard offers on a dataset (see normalDefault), before anything is registered. */
    async normalDefault(auth: AuthContext, datasetId: string, q: { time_column?: string | null; target?: string | null }) {
      const dataset = await datasets.getRow(auth, datasetId);
      const schema = datasetSchema(dataset);
      const time = q.time_column || dataset.datetime_column;
      if (!time) throw new AppError(422, M.noTime, {}, 'time_column');
      for (const [field, c] of [['time_column', time], ['target', q.target]] as const) {
        if (c && !schema.some((x) => x.name === c)) throw new AppError(422, TM.unknownColumn, { column: c }, field);
      }
      return normalDefault(deps, dataset, time, q.target || null);
    },
    suggestDrift: on(suggestDrift),
    register: on(register),
    train: on(train),
    report: on(report),
    reportFile: on(reportFile),
    async rename(auth: AuthContext, id: string, name: string, lang: Lang = 'en') {
      await runs.rename(auth.orgId, (await getProject(auth, id)).id, name);
      return view(auth, await getProject(auth, id), lang);
    },
    /** The project, its models, saved thresholds and files. */
    async remove(auth: AuthContext, id: string) {
      const p = await getProject(auth, id);
      return runs.remove(auth, p, () => thresholdRepo.remove(db, auth.orgId, p.id));
    },
    /** The trained detector's zip (model.joblib and manifest.json) and the name it is downloaded by. */
    async modelZip(auth: AuthContext, projectId: string, key: string) {
      const { p, m, dir } = await doneModel(auth, projectId, key);
      return { file: path.join(dir, 'model.zip'), name: `${p.name}-${m.model_key}.zip` };
    },
    threshold: on(threshold),
    saveThreshold: on(saveThreshold),
    series: on(series),
    contributions: on(contributions),
    signals: on(signals),
  };
}

export type TimeSeriesService = ReturnType<typeof makeTimeSeriesService>;

