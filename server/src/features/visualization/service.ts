import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import type { DatasetService } from '../datasets/service.js';
import { AnswerCache } from './answer-cache.js';
import { makeExplore, type Explore } from './explore.js';
import { boxplot, histogram } from './distributions.js';
import { matrix, scatter } from './scatter.js';
import { correlation } from './correlation.js';
import { timeseries } from './series.js';

/** SPEC §7 'Visualization': each answer a module of its own (distributions, scatter, correlation, series). */
export function makeVisualizationService(ctx: AppContext, { datasets }: { datasets: DatasetService }) {
  const x = makeExplore(ctx, datasets);
  const on = <A extends unknown[], R>(f: (x: Explore, ...a: A) => R) => (...a: A): R => f(x, ...a);
  // The routes' written answers (answer-cache.ts). A deleted dataset's answers go at once; a rebuilt sketch makes
  // the answers about the previous build stale.
  const answers = new AnswerCache(ctx.config.exploreCacheMb * 1024 * 1024);
  datasets.onSketchChange((datasetId, buildId) => answers.invalidate(datasetId, buildId));
  return {
    answers,
    /**
     * The dataset's id and the version its answers are kept under (the build of its sketch: a sampled scatter
     * differs with and without it), once the caller's access to the dataset is checked (404 otherwise).
     */
    async version(auth: AuthContext, id: string): Promise<{ id: string; version: string }> {
      const row = await datasets.getRow(auth, id);
      return { id: row.id, version: datasets.sketchOf(row)?.manifest.build_id ?? '-' };
    },
    histogram: on(histogram),
    boxplot: on(boxplot),
    scatter: on(scatter),
    matrix: on(matrix),
    correlation: on(correlation),
    timeseries: on(timeseries),
  };
}

export type VisualizationService = ReturnType<typeof makeVisualizationService>;
