import crypto from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../../db/index.js';
import { storedJson } from '../../../db/stored.js';
import { platformRepo } from '../repo.js';
import type { PlatformDriftCheckTable } from './db.js';
import './db.js';
import { driftSettings } from './schemas.js';

export interface SampledRow {
  orgId: string;
  projectId: string;
  at: number; // ms
  row: unknown;
}

/** A sampled row as insertSamples wrote it: a row of an answered request as it was sent (or read from its CSV), or an
 * image model's served {score}; handed to the engine as it is. */
const sampledRow = z.json();

/** A project's saved drift settings (saveSettings writes settingsOf's output; rows saved before auto_minutes lack it).
 * Numbers, their ranges unchecked: settingsOf drops a saved value that no longer validates. */
const savedSettings = z.object(Object.fromEntries(Object.keys(driftSettings.shape).map((k) => [k, z.number().optional()])) as Record<keyof typeof driftSettings.shape, z.ZodOptional<z.ZodNumber>>);

/** The drift tables' one place for SQL (samples, checks, settings); the projects are read through platformRepo. */
export class DriftRepo {
  constructor(private db: Db) {}

  /**
   * Writes sampled rows in one transaction (rows of projects deleted meanwhile are dropped), then keeps each
   * touched project's rows bounded: none older than `keepDays`, at most the newest `keepRows`.
   */
  async insertSamples(rows: SampledRow[], keep: { keepRows: number; keepDays: number }): Promise<Map<string, number>> {
    const written = new Map<string, number>();
    if (!rows.length) return written;
    const projects = [...new Set(rows.map((r) => r.projectId))];
    await this.db.transaction().execute(async (tx) => {
      const live = await platformRepo.existing(tx, projects);
      const values = rows
        .filter((r) => live.has(r.projectId))
        .map((r) => ({ id: crypto.randomUUID(), organisation_id: r.orgId, project_id: r.projectId, at: new Date(r.at).toISOString(), row_json: JSON.stringify(r.row) }));
      for (let i = 0; i < values.length; i += 200) await tx.insertInto('platform_drift_samples').values(values.slice(i, i + 200)).execute();
      for (const v of values) written.set(v.project_id, (written.get(v.project_id) ?? 0) + 1);
      const cutoff = new Date(Date.now() - keep.keepDays * 86400_000).toISOString();
      for (const id of written.keys()) {
        await tx.deleteFrom('platform_drift_samples').where('project_id', '=', id).where('at', '<', cutoff).execute();
        const edge = await tx.selectFrom('platform_drift_samples').select('at').where('project_id', '=', id).orderBy('at', 'desc').offset(keep.keepRows).limit(1).executeTakeFirst();
        if (edge) await tx.deleteFrom('platform_drift_samples').where('project_id', '=', id).where('at', '<=', edge.at).execute();
      }
    });
    return written;
  }

  /** The newest sampled rows of a project since `from` (ISO), at most `limit`, oldest first. */
  async window(orgId: string, projectId: string, from: string, limit: number): Promise<{ at: string; row: unknown }[]> {
    const rows = await this.db
      .selectFrom('platform_drift_samples')
      .select(['at', 'row_json'])
      .where('organisation_id', '=', orgId)
      .where('project_id', '=', projectId)
      .where('at', '>=', from)
      .orderBy('at', 'desc')
      .limit(limit)
      .execute();
    return rows.reverse().map((r) => ({ at: r.at, row: storedJson('drift sample row', sampledRow, r.row_json) }));
  }

  async countSamples(orgId: string, projectId: string, since?: string): Promise<number> {
    let q = this.db.selectFrom('platform_drift_samples').select((eb) => eb.fn.countAll().as('n')).where('organisation_id', '=', orgId).where('project_id', '=', projectId);
    if (since) q = q.where('at', '>', since);
    return Number((await q.executeTakeFirst())?.n ?? 0);
  }

  async settings(orgId: string, projectId: string): Promise<unknown> {
    const r = await this.db.selectFrom('platform_drift_settings').select('settings_json').where('organisation_id', '=', orgId).where('project_id', '=', projectId).executeTakeFirst();
    return r ? storedJson('drift settings', savedSettings, r.settings_json) : {};
  }

  async saveSettings(orgId: string, projectId: string, settings: object): Promise<void> {
    const row = { project_id: projectId, organisation_id: orgId, settings_json: JSON.stringify(settings), updated_at: new Date().toISOString() };
    await this.db
      .insertInto('platform_drift_settings')
      .values(row)
      .onConflict((oc) => oc.column('project_id').doUpdateSet({ settings_json: row.settings_json, updated_at: row.updated_at }))
      .execute();
  }

  async insertCheck(c: PlatformDriftCheckTable): Promise<void> {
    await this.db.insertInto('platform_drift_checks').values(c).execute();
  }

  /** Marks a running check started (its job) — only while it is still running. */
  async setCheckJob(id: string, jobId: string): Promise<void> {
    await this.db.updateTable('platform_drift_checks').set({ job_id: jobId }).where('id', '=', id).execute();
  }

  async finishCheck(jobId: string, patch: { state: 'done' | 'failed'; result_json: string | null; error: string | null }): Promise<void> {
    await this.db
      .updateTable('platform_drift_checks')
      .set({ ...patch, finished_at: new Date().toISOString() })
      .where('job_id', '=', jobId)
      .where('state', '=', 'running')
      .execute();
  }

  async failCheck(id: string, error: string): Promise<void> {
    await this.db.updateTable('platform_drift_checks').set({ state: 'failed', error, finished_at: new Date().toISOString() }).where('id', '=', id).execute();
  }

  /** The newest checks of a project, newest first. */
  async checks(orgId: string, projectId: string, limit: number): Promise<PlatformDriftCheckTable[]> {
    return this.db
      .selectFrom('platform_drift_checks')
      .selectAll()
      .where('organisation_id', '=', orgId)
      .where('project_id', '=', projectId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  async running(projectId: string): Promise<PlatformDriftCheckTable | undefined> {
    return this.db.selectFrom('platform_drift_checks').selectAll().where('project_id', '=', projectId).where('state', '=', 'running').orderBy('created_at', 'desc').executeTakeFirst();
  }

  async checkOfJob(jobId: string): Promise<PlatformDriftCheckTable | undefined> {
    return this.db.selectFrom('platform_drift_checks').selectAll().where('job_id', '=', jobId).executeTakeFirst();
  }

  /** Keeps a project's newest `keep` checks (the time chart's history). */
  async pruneChecks(projectId: string, keep: number): Promise<void> {
    const edge = await this.db.selectFrom('platform_drift_checks').select('created_at').where('project_id', '=', projectId).orderBy('created_at', 'desc').offset(keep).limit(1).executeTakeFirst();
    if (edge) await this.db.deleteFrom('platform_drift_checks').where('project_id', '=', projectId).where('created_at', '<=', edge.created_at).where('state', '!=', 'running').execute();
  }

  /** The project's organisation (platform_projects is the platform repo's table). */
  project(projectId: string): Promise<{ id: string; organisation_id: string } | undefined> {
    return platformRepo.owner(this.db, projectId);
  }
}
