import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../../auth/guard.js';
import type { AppContext } from '../../../context.js';
import { AppError } from '../../../http/errors.js';
import { engineErrorText } from '../../../i18n/engine-errors.js';
import type { Lang } from '../../../i18n/messages.js';
import type { Users } from '../../account/users.js';
import type { DatasetService } from '../../datasets/service.js';
import { IMAGE_TYPES } from '../../images/schemas.js';
import type { TrainingService } from '../../training/service.js';
import type { PlatformProjectTable } from '../db.js';
import { driftReferenceOf } from '../image-serving.js';
import type { PlatformService } from '../service.js';
import type { PlatformDriftCheckTable } from './db.js';
import { D } from './messages.js';
import { platformDriftJob } from './jobs.js';
import { DriftRepo } from './repo.js';
import { autoDue, settingsOf, warningsOf, windowStart } from './rules.js';
import { DriftSampler } from './sampler.js';
import type { DriftCheckView, DriftSettings, DriftView } from './schemas.js';

export const DRIFT_KIND = platformDriftJob.kind;
/** Checks kept per project (the time chart's history). */
const KEEP_CHECKS = 60;
/** A check still 'running' after this long lost its job (a server restart): another may start. */
const STALE_MS = 30 * 60_000;
const INTERRUPTED = 'interrupted';
/** Image models are compared by their served scores (the project type of an image training project). */
const isImage = (type: string) => (IMAGE_TYPES as readonly string[]).includes(type) || type.startsWith('image');

/** What the check needs of other areas, looked up by organisation (an automatic check has no caller). */
const systemAuth = (orgId: string): AuthContext => ({ orgId, userId: '', role: 'system', email: '' });

interface DriftDeps {
  platform: PlatformService;
  training: TrainingService;
  datasets: DatasetService;
  users: Pick<Users, 'inOrganisation' | 'list'>;
}

/**
 * The language an automatic check says its progress in, having no caller: the profile language of the person who
 * published the hosted API (they set it up and its drift warnings are theirs to act on), or, when that account is
 * gone or inactive, of the organisation's longest-standing active owner (who answers for every hosted API); English
 * when neither exists.
 */
async function autoLang(users: DriftDeps['users'], p: PlatformProjectTable): Promise<Lang> {
  const owners = (await users.list(p.organisation_id)).filter((m) => m.role === 'owner').map((m) => m.id);
  for (const id of [p.created_by, ...owners]) {
    const u = id ? await users.inOrganisation(p.organisation_id, id) : undefined;
    if (u?.status === 'active') return u.language.startsWith('ja') ? 'ja' : 'en';
  }
  return 'en';
}

function checkView(c: PlatformDriftCheckTable, s: DriftSettings, lang: Lang): DriftCheckView {
  const r = c.result_json ? platformDriftJob.parseStored(c.result_json) : null;
  const features = (r?.features ?? []).map((f) => ({ ...f, warnings: warningsOf(f, s, c.rows) }));
  return {
    id: c.id,
    state: c.state,
    trigger: c.trigger,
    rows: Number(c.rows),
    window_from: c.window_from,
    window_to: c.window_to,
    created_at: c.created_at,
    finished_at: c.finished_at,
    error: c.error === null ? null : D.failed[lang].replace('{reason}', c.error === INTERRUPTED ? D.interrupted[lang] : (engineErrorText(c.error, lang) ?? c.error)),
    enough_rows: Number(c.rows) >= s.min_rows,
    condition_applied: r?.condition_applied ?? false,
    features,
    warning: features.some((f) => f.warnings.length > 0),
  };
}

/**
 * The reference the served inputs are compared with: the training dataset's Parquet file, or for image models
 * the validation scores the hosted folder keeps (image-serving.ts driftReferenceOf, written when an image model is published).
 */
async function reference(ctx: AppContext, deps: DriftDeps, auth: AuthContext, p: PlatformProjectTable): Promise<{ parquet: string } | { ok_scores: number[] }> {
  if (isImage(p.model_type)) {
    const okScores = driftReferenceOf(ctx.storage.pathOf(p.model_dir));
    if (okScores) return { ok_scores: okScores };
    throw new AppError(409, D.noOkScores);
  }
  try {
    const project = await deps.training.getProject(auth, p.model_project_id);
    const parquet = deps.datasets.parquetPath(await deps.datasets.getRow(auth, project.dataset_id));
    if (fs.existsSync(parquet)) return { parquet };
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
  }
  throw new AppError(409, D.noTrainingData);
}

/** A check's row as it starts: running, over the sampled window `rows` (oldest first). */
function newCheck(id: string, auth: AuthContext, p: PlatformProjectTable, trigger: 'manual' | 'auto', rows: { at: string }[]): PlatformDriftCheckTable {
  return {
    id,
    organisation_id: p.organisation_id,
    project_id: p.id,
    job_id: null,
    state: 'running',
    trigger,
    rows: rows.length,
    window_from: rows[0].at,
    window_to: rows[rows.length - 1].at,
    result_json: null,
    error: null,
    created_by: auth.userId || null,
    created_at: new Date().toISOString(),
    finished_at: null,
  };
}

/**
 * Input drift of hosted APIs: the sampler (fed by the serving path), per-project settings, and checks that run as
 * engine jobs (kind platform_drift) on the sampled window against the model's training data. A check starts from
 * the "Check drift" button (POST .../drift/check) or by itself once `auto_every` new rows were sampled since the
 * last check started.
 */
export function makeDriftService(ctx: AppContext, deps: DriftDeps) {
  const repo = new DriftRepo(ctx.db);
  const sampleDir = path.join(ctx.config.dataDir, 'platform-drift');
  const sampler = new DriftSampler(
    repo,
    ctx.config.drift,
    (e) => ctx.log.error(`drift samples not written: ${e.message}`),
    (written) => {
      for (const [projectId, w] of written) void maybeAuto(w.orgId, projectId).catch((e: Error) => ctx.log.warn(`drift: automatic check not started: ${e.message}`));
    },
  );

  async function settings(orgId: string, projectId: string): Promise<DriftSettings> {
    return settingsOf(await repo.settings(orgId, projectId));
  }

  async function runningCheck(projectId: string): Promise<PlatformDriftCheckTable | undefined> {
    const r = await repo.running(projectId);
    if (r && Date.now() - Date.parse(r.created_at) > STALE_MS) {
      await repo.failCheck(r.id, INTERRUPTED);
      return undefined;
    }
    return r;
  }

  async function maybeAuto(orgId: string, projectId: string): Promise<void> {
    const s = await settings(orgId, projectId);
    if (!s.auto_every) return;
    const [last] = await repo.checks(orgId, projectId, 1);
    if (last && Date.now() - Date.parse(last.created_at) < s.auto_minutes * 60_000) return; // before counting rows
    const fresh = await repo.countSamples(orgId, projectId, last?.created_at);
    if (!autoDue(s, fresh, !!(await runningCheck(projectId)), last?.created_at)) return;
    const p = await repo.project(projectId);
    if (!p) return;
    const project = await deps.platform.get(systemAuth(orgId), projectId);
    await start(systemAuth(orgId), project, 'auto', await autoLang(deps.users, project)).catch((e: unknown) => {
      if (!(e instanceof AppError)) throw e; // a refusal (no training data, already running) waits for the next rows
    });
  }

  /** `lang`: the language the engine says the check's progress in (the caller's; autoLang for an automatic check). */
  async function start(auth: AuthContext, p: PlatformProjectTable, trigger: 'manual' | 'auto', lang: Lang): Promise<void> {
    if (await runningCheck(p.id)) throw new AppError(409, D.running);
    const s = await settings(p.organisation_id, p.id);
    const rows = await repo.window(p.organisation_id, p.id, windowStart(s), s.window_rows);
    if (!rows.length) throw new AppError(409, D.noSamples, { hours: s.window_hours });
    const ref = await reference(ctx, deps, auth, p);
    const id = crypto.randomUUID();
    await repo.insertCheck(newCheck(id, auth, p, trigger, rows));
    const file = path.join(sampleDir, `${id}.json`);
    try {
      fs.mkdirSync(sampleDir, { recursive: true });
      const scores = 'ok_scores' in ref;
      fs.writeFileSync(file, JSON.stringify(scores ? { scores: rows.map((r) => (r.row as { score?: number }).score ?? null) } : { rows: rows.map((r) => r.row) }));
      await ctx.jobs.create({
        orgId: p.organisation_id,
        userId: auth.userId || null,
        kind: platformDriftJob,
        subjectType: 'platform_project',
        subjectId: p.id,
        spec: { samples: file, model_dir: ctx.storage.pathOf(p.model_dir), ...ref, lang },
        beforeEnqueue: (job) => repo.setCheckJob(id, job.id),
      });
    } catch (e) {
      fs.rmSync(file, { force: true });
      await repo.failCheck(id, (e as Error).message);
      throw e;
    }
    await repo.pruneChecks(p.id, KEEP_CHECKS);
  }

  return {
    sampler,

    /** Installed once at start-up (services.ts): the job's end is recorded with its check. */
    installJobHandlers() {
      ctx.jobs.onFinished(platformDriftJob, async (job) => {
        const c = await repo.checkOfJob(job.id);
        fs.rmSync(path.join(sampleDir, `${c?.id ?? ''}.json`), { force: true });
        if (!c) return;
        if (job.state === 'succeeded') await repo.finishCheck(job.id, { state: 'done', result_json: JSON.stringify(job.result), error: null });
        else await repo.finishCheck(job.id, { state: 'failed', result_json: null, error: job.error ?? job.state });
      });
    },

    /** Starts a check now (the button); the answer is the drift view with the check running. */
    async check(auth: AuthContext, projectId: string, lang: Lang): Promise<DriftView> {
      const p = await deps.platform.get(auth, projectId);
      await sampler.flush();
      await start(auth, p, 'manual', lang);
      return this.view(auth, projectId, lang);
    },

    async view(auth: AuthContext, projectId: string, lang: Lang): Promise<DriftView> {
      const p = await deps.platform.get(auth, projectId);
      await sampler.flush();
      const s = await settings(auth.orgId, p.id);
      const checks = await repo.checks(auth.orgId, p.id, KEEP_CHECKS);
      const running = !!(await runningCheck(p.id));
      const latest = checks[0] ? checkView(checks[0], s, lang) : null;
      const done = checks.filter((c) => c.state === 'done').map((c) => checkView(c, s, lang));
      const last = done[0];
      return {
        settings: s,
        sampled_rows: await repo.countSamples(auth.orgId, p.id),
        new_rows: await repo.countSamples(auth.orgId, p.id, checks[0]?.created_at),
        running,
        latest,
        warning: !!last?.warning,
        warned_features: last ? last.features.filter((f) => f.warnings.length).map((f) => f.feature) : [],
        history: done
          .reverse()
          .map((c) => ({ time: c.created_at, rows: c.rows, psi: Object.fromEntries(c.features.map((f) => [f.feature, f.psi])), warned: c.features.filter((f) => f.warnings.length).map((f) => f.feature) })),
      };
    },

    async saveSettings(auth: AuthContext, projectId: string, patch: Partial<DriftSettings>, lang: Lang): Promise<DriftView> {
      const p = await deps.platform.get(auth, projectId);
      const s = { ...(await settings(auth.orgId, p.id)), ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) };
      await repo.saveSettings(auth.orgId, p.id, settingsOf(s));
      return this.view(auth, projectId, lang);
    },

    close: () => sampler.close(),
  };
}
