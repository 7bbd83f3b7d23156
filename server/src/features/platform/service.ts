import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import { storedJson } from '../../db/stored.js';
import { AppError } from '../../http/errors.js';
import type { LocalText } from '../../i18n/messages.js';
import type { Users } from '../account/users.js';
import type { IdentityService } from '../identity/service.js';
import type { InstallationService } from '../installation/service.js';
import type { TimeSeriesService } from '../timeseries/service.js';
import type { TrainingService } from '../training/service.js';
import { modelMetrics, projectConfig } from '../training/stored.js';
import type { PlatformProjectTable, PlatformStatus } from './db.js';
import { imageServingOf, isImageModel } from './image-serving.js';
import { createCredential, type CredentialDeps, credentials, credentialView, revokeCredential } from './credentials.js';
import { createDraft } from './drafts.js';
import { hostedManifest, platformSettings } from './stored.js';
import { M, STATUS_WORDS } from './messages.js';
import { platformRepo as repo } from './repo.js';
import { quote } from './prices.js';
import type { Settings } from './schemas.js';
import type { QuoteInput } from './prices.js';
import { statsOf } from './stats.js';
import { describeTsProject } from './timeseries-serving.js';

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
    const m = storedJson('hosted model manifest', hostedManifest, fs.readFileSync(path.join(storage.pathOf(p.model_dir), 'manifest.json'), 'utf8'));
    // a time-series detector's rows need its time column too (first, as its interface lists it)
    return { features: [...(m.time_column ? [m.time_column] : []), ...(m.features ?? [])], outputs: m.outputs ?? [] };
  } catch {
    return { features: [], outputs: [] };
  }
}

export interface PlatformDeps {
  training: TrainingService;
  timeSeries: Pick<TimeSeriesService, 'savedThresholds'>;
  installation: Pick<InstallationService, 'reviewRequired'>;
  identity: Pick<IdentityService, 'verified'>;
  users: Pick<Users, 'organisationNames'>;
}

export function makePlatformService(ctx: AppContext, { training, timeSeries, installation, identity, users }: PlatformDeps) {
  const { db, storage, config } = ctx;
  const prices = ctx.config.prices;
  const on = <A extends unknown[], R>(f: (d: CredentialDeps, ...a: A) => R) => (...a: A): R => f({ db, get }, ...a);

  async function get(auth: Pick<AuthContext, 'orgId'>, id: string): Promise<PlatformProjectTable> {
    const row = await repo.get(db, auth.orgId, id);
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
      settings: platformSettings(p),
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
  const identityVerified = (orgId: string): Promise<boolean> => identity.verified(orgId);

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
      if (!(await repo.moveFrom(db, auth.orgId, id, p.status, change))) throw transitionError(p.status, action);
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
      const { rows, total } = await repo.page(db, auth.orgId, q);
      return { items: rows.map((r) => view(r)), total };
    },

    /** Trained models of the organisation that can be published (tabular types now). */
    async publishable(auth: AuthContext) {
      const rows = await training.trainedModels(auth);
      return rows.map(({ metrics_json, ...r }) => ({ ...r, metrics: modelMetrics({ metrics_json }) }));
    },

    create: async (auth: AuthContext, body: Parameters<typeof createDraft>[2]) => view(await createDraft({ db, storage, training, prices }, auth, body)),

    async update(auth: AuthContext, id: string, body: Partial<Settings> & { name?: string }) {
      const p = await get(auth, id);
      if (p.status !== 'draft' && p.status !== 'rejected') throw new AppError(409, M.notEditable);
      const { name, ...rest } = body;
      const settings = { ...platformSettings(p), ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) };
      const q = priced(settings);
      await repo.update(db, auth.orgId, id, { name: name ?? p.name, settings_json: JSON.stringify(settings), subscription_price: q.subscription_price, infrastructure_price: q.infrastructure_price, updated_at: now() });
      return view(await get(auth, id));
    },

    async remove(auth: AuthContext, id: string) {
      const p = await get(auth, id);
      await repo.remove(db, auth.orgId, p.id);
      storage.remove(`org/${auth.orgId}/platform/${p.id}`);
      return { id: p.id, key: p.key };
    },

    /** A platform administrator's decision; an organisation whose identity is not verified is not approved. */
    async review(adminId: string, id: string, decision: 'approve' | 'reject', reason: string | undefined) {
      const p = await repo.byId(db, id);
      if (!p) throw new AppError(404, M.notFound);
      if (p.status !== 'under_review') throw transitionError(p.status, 'review');
      if (decision === 'reject' && !reason?.trim()) throw new AppError(422, M.rejectReasonRequired, {}, 'reason');
      if (decision === 'approve' && !(await identityVerified(p.organisation_id))) throw new AppError(409, M.identityNotVerified);
      const decided = await repo.decide(db, id, { status: decision === 'approve' ? 'approved' : 'rejected', reason: decision === 'reject' ? reason!.trim() : null, reviewed_at: now(), reviewed_by: adminId, updated_at: now() });
      if (!decided) throw transitionError(p.status, 'review');
      return view((await repo.byId(db, id))!);
    },

    async reviewQueue(status: string) {
      const rows = await repo.queue(db, status);
      const names = await users.organisationNames(rows.map((r) => r.organisation_id)); // the account area's table: one query
      const items = [];
      for (const r of rows) {
        items.push({ ...view(r, { organisation_name: names.get(r.organisation_id) }), identity_verified: await identityVerified(r.organisation_id) });
      }
      return { items, total: items.length };
    },

    /** A hosted time-series detector's interface, with the threshold in force: the one saved for the model in its
     * project, else training's. */
    async timeSeriesDescription(auth: AuthContext, id: string) {
      const p = await get(auth, id);
      const cfg = await training.getProject(auth, p.model_project_id).then(projectConfig, () => null);
      const saved = (await timeSeries.savedThresholds(p.organisation_id, p.model_project_id)).get(p.model_key) ?? null;
      const timeIsDatetime = typeof cfg?.time_is_datetime === 'boolean' ? cfg.time_is_datetime : null;
      return describeTsProject(p, { dir: storage.pathOf(p.model_dir), endpoint: view(p).endpoint, timeIsDatetime, savedThreshold: saved, limits: config.tsadStream });
    },

    /** Request statistics of the caller's project `p` (from `get`) since `fromHour` (ISO hour), by hour or day. */
    statistics: async (auth: Pick<AuthContext, 'orgId'>, p: PlatformProjectTable, fromHour: string, bucket: 'hour' | 'day') => statsOf(await repo.statRows(db, auth.orgId, p.id, fromHour), bucket),

    // ---- billing's view (across organisations: billing runs over all of them) -----------------------------

    /** Hosted APIs in one of `statuses` that were reviewed once, of one organisation or of all. */
    reviewedIn: (statuses: readonly PlatformStatus[], orgId?: string) => repo.reviewedIn(db, statuses, orgId),
    /** Answered calls of a project and their serving time in [fromHour, toHour): the only billed usage. */
    usage: (projectId: string, fromHour: string, toHour: string) => repo.billableUsage(db, projectId, fromHour, toHour),

    // ---- credentials ------------------------------------------------------------------------------------

    credentialView,
    credentials: on(credentials),
    createCredential: on(createCredential),
    revokeCredential: on(revokeCredential),
  };
}

export type PlatformService = ReturnType<typeof makePlatformService>;
