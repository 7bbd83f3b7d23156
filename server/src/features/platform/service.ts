import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/index.js';
import { AppError } from '../../http/errors.js';
import type { LocalText } from '../../i18n/messages.js';
import '../account/db.js';
import type { InstallationService } from '../installation/service.js';
import type { TrainingService } from '../training/service.js';
import type { TrainingModelView } from '../training/responses.js';
import type { PlatformProjectTable, PlatformStatus } from './db.js';
import './db.js';
import { imageServingOf, isImageModel } from './image-serving.js';
import { createCredential, type CredentialDeps, credentials, credentialView, revokeCredential } from './credentials.js';
import { createDraft } from './drafts.js';
import { M, STATUS_WORDS } from './messages.js';
import { quote } from './prices.js';
import type { Settings } from './schemas.js';
import type { QuoteInput } from './prices.js';

const now = () => new Date().toISOString();

export type Action = 'submit' | 'draft' | 'start' | 'stop';

/** The life cycle (SPEC §4): which statuses each action leaves from, and where it goes. Review is the admins'. */
export const TRANSITIONS: Record<Action, { from: PlatformStatus[]; to: PlatformStatus }> = {
  submit: { from: ['draft', 'rejected'], to: 'under_review' },
  draft: { from: ['under_review', 'rejected'], to: 'draft' },
  start: { from: ['approved', 'stopped'], to: 'running' },
  stop: { from: ['running'], to: 'stopped' },
};

const word = (k: string) => STATUS_WORDS[k] ?? { en: k, ja: k };
function transitionError(status: string, action: string): AppError {
  const s = word(status);
  const a = word(action === 'draft' ? 'draft_action' : action);
  const text: LocalText = { code: M.badTransition.code, en: M.badTransition.en.replace('{status}', s.en).replace('{action}', a.en), ja: M.badTransition.ja.replace('{status}', s.ja).replace('{action}', a.ja) };
  return new AppError(409, text);
}

/** Compares two hex digests in constant time. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && crypto.timingSafeEqual(x, y);
}

/** The features a hosted model's rows need and the outputs it answers, from its copied manifest. */
function manifestOf(storage: AppContext['storage'], p: PlatformProjectTable): { features: string[]; outputs: string[] } {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(storage.pathOf(p.model_dir), 'manifest.json'), 'utf8'));
    // a time-series detector's rows need its time column too (first, as its interface lists it)
    return { features: [...(m.time_column ? [m.time_column] : []), ...(m.features ?? [])], outputs: m.outputs ?? [] };
  } catch {
    return { features: [], outputs: [] };
  }
}

const identityRow = (db: Db, orgId: string) =>
  db.selectFrom('identity_verifications').select('id').where('organisation_id', '=', orgId).where('state', '=', 'done').executeTakeFirst();

/** Trained models of the organisation that can be published (tabular types now). */
async function publishable(db: Db, auth: AuthContext) {
  const rows = await db
    .selectFrom('training_models as m')
    .innerJoin('training_projects as p', 'p.id', 'm.project_id')
    .select(['p.id as project_id', 'p.name as project_name', 'p.project_type', 'm.model_key', 'm.algorithm', 'm.metrics_json', 'm.trained_at'])
    .where('m.organisation_id', '=', auth.orgId)
    .where('p.organisation_id', '=', auth.orgId)
    .where('m.state', '=', 'done')
    .orderBy('m.trained_at', 'desc')
    .execute();
  return rows.map(({ metrics_json, ...r }) => ({ ...r, metrics: metrics_json ? (JSON.parse(metrics_json) as TrainingModelView['metrics']) : null }));
}

export function makePlatformService(ctx: AppContext, { training, installation }: { training: TrainingService; installation: Pick<InstallationService, 'reviewRequired'> }) {
  const { db, storage, config } = ctx;
  const prices = ctx.config.prices;
  const on = <A extends unknown[], R>(f: (d: CredentialDeps, ...a: A) => R) => (...a: A): R => f({ db, get }, ...a);

  async function get(auth: Pick<AuthContext, 'orgId'>, id: string): Promise<PlatformProjectTable> {
    const row = await db.selectFrom('platform_projects').selectAll().where('organisation_id', '=', auth.orgId).where('id', '=', id).executeTakeFirst();
    if (!row) throw new AppError(404, M.notFound);
    return row;
  }

  function view(p: PlatformProjectTable, extra: { organisation_name?: string } = {}) {
    const { features, outputs } = manifestOf(storage, p);
    return {
      id: p.id,
      name: p.name,
      key: p.key,
      status: p.status,
      // the actions this status offers, so the web app shows exactly what the server allows
      actions: (Object.keys(TRANSITIONS) as Action[]).filter((a) => TRANSITIONS[a].from.includes(p.status)),
      reason: p.reason,
      model: { project_id: p.model_project_id, project_name: p.model_project_name, model_key: p.model_key, type: p.model_type },
      settings: JSON.parse(p.settings_json) as Settings,
      currency: prices.currency,
      subscription_price: Number(p.subscription_price),
      infrastructure_price: Number(p.infrastructure_price),
      endpoint: `${config.publicUrl.replace(/\/$/, '')}/serve/${p.key}/predict`,
      features,
      outputs,
      image: isImageModel(p.model_type) ? imageServingOf(storage.pathOf(p.model_dir)) : null,
      created_at: p.created_at,
      updated_at: p.updated_at,
      reviewed_at: p.reviewed_at,
      ...extra,
    };
  }

  const priced = (s: QuoteInput) => quote(prices, s);

  /** Whether the organisation has verified its identity (SPEC §4: otherwise its projects are not approved). */
  const identityVerified = async (orgId: string): Promise<boolean> => !!(await identityRow(db, orgId));

  async function move(auth: Pick<AuthContext, 'orgId'>, id: string, action: Action) {
    const p = await get(auth, id);
    const t = TRANSITIONS[action];
    if (!t.from.includes(p.status)) throw transitionError(p.status, action);
    // With the review switched off (installation setting), submitting approves at once, once the identity is verified.
    if (action === 'submit' && !(await installation.reviewRequired())) {
      if (!(await identityVerified(auth.orgId))) throw new AppError(409, M.verifyIdentityToPublish);
      const at = now();
      return move({ status: 'approved', reason: null, reviewed_at: at, reviewed_by: null, updated_at: at });
    }
    return move({ status: t.to, updated_at: now(), ...(action === 'submit' || action === 'draft' ? { reason: null } : {}) });

    // Guarded by the status read, so two concurrent clicks move it once.
    async function move(change: Partial<PlatformProjectTable>) {
      const res = await db.updateTable('platform_projects').set(change).where('organisation_id', '=', auth.orgId).where('id', '=', id).where('status', '=', p.status).executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) throw transitionError(p.status, action);
      return view(await get(auth, id));
    }
  }

  return {
    prices,
    priced,
    get,
    view,
    identityVerified,
    move,

    async list(auth: AuthContext, q: { status: string; page: number; page_size: number }) {
      let s = db.selectFrom('platform_projects').where('organisation_id', '=', auth.orgId);
      if (q.status !== 'all') s = s.where('status', '=', q.status as PlatformStatus);
      const total = Number((await s.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst())?.n ?? 0);
      const rows = await s.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(q.page_size).offset((q.page - 1) * q.page_size).execute();
      return { items: rows.map((r) => view(r)), total };
    },

    publishable: (auth: AuthContext) => publishable(db, auth),

    create: async (auth: AuthContext, body: Parameters<typeof createDraft>[2]) => view(await createDraft({ db, storage, training, prices }, auth, body)),

    async update(auth: AuthContext, id: string, body: Partial<Settings> & { name?: string }) {
      const p = await get(auth, id);
      if (p.status !== 'draft' && p.status !== 'rejected') throw new AppError(409, M.notEditable);
      const { name, ...rest } = body;
      const settings = { ...(JSON.parse(p.settings_json) as Settings), ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) } as Settings;
      const q = priced(settings);
      await db
        .updateTable('platform_projects')
        .set({ name: name ?? p.name, settings_json: JSON.stringify(settings), subscription_price: q.subscription_price, infrastructure_price: q.infrastructure_price, updated_at: now() })
        .where('organisation_id', '=', auth.orgId)
        .where('id', '=', id)
        .execute();
      return view(await get(auth, id));
    },

    async remove(auth: AuthContext, id: string) {
      const p = await get(auth, id);
      await db.deleteFrom('platform_request_stats').where('project_id', '=', p.id).execute();
      await db.deleteFrom('platform_credentials').where('project_id', '=', p.id).execute();
      await db.deleteFrom('platform_projects').where('organisation_id', '=', auth.orgId).where('id', '=', p.id).execute();
      storage.remove(`org/${auth.orgId}/platform/${p.id}`);
      return { id: p.id, key: p.key };
    },

    /** A platform administrator's decision; an organisation whose identity is not verified is not approved. */
    async review(adminId: string, id: string, decision: 'approve' | 'reject', reason: string | undefined) {
      const p = await db.selectFrom('platform_projects').selectAll().where('id', '=', id).executeTakeFirst();
      if (!p) throw new AppError(404, M.notFound);
      if (p.status !== 'under_review') throw transitionError(p.status, 'review');
      if (decision === 'reject' && !reason?.trim()) throw new AppError(422, M.rejectReasonRequired, {}, 'reason');
      if (decision === 'approve' && !(await identityVerified(p.organisation_id))) throw new AppError(409, M.identityNotVerified);
      const res = await db
        .updateTable('platform_projects')
        .set({ status: decision === 'approve' ? 'approved' : 'rejected', reason: decision === 'reject' ? reason!.trim() : null, reviewed_at: now(), reviewed_by: adminId, updated_at: now() })
        .where('id', '=', id)
        .where('status', '=', 'under_review')
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) throw transitionError(p.status, 'review');
      return view((await db.selectFrom('platform_projects').selectAll().where('id', '=', id).executeTakeFirstOrThrow()));
    },

    async reviewQueue(status: string) {
      let q = db.selectFrom('platform_projects as p').innerJoin('organisations as o', 'o.id', 'p.organisation_id').selectAll('p').select('o.name as organisation_name');
      if (status !== 'all') q = q.where('p.status', '=', status as PlatformStatus);
      const rows = await q.orderBy('p.updated_at', 'desc').execute();
      const items = [];
      for (const r of rows) items.push({ ...view(r, { organisation_name: r.organisation_name }), identity_verified: await identityVerified(r.organisation_id) });
      return { items, total: items.length };
    },

    // ---- credentials ------------------------------------------------------------------------------------

    credentialView,
    credentials: on(credentials),
    createCredential: on(createCredential),
    revokeCredential: on(revokeCredential),
  };
}

export type PlatformService = ReturnType<typeof makePlatformService>;
