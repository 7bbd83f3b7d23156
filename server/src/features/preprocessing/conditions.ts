import crypto from 'node:crypto';
import { z } from 'zod';
import type { AuthContext } from '../../auth/guard.js';
import { AppError } from '../../http/errors.js';
import type { PreprocessConditionTable } from './db.js';
import { M } from './messages.js';
import { leaveOutUnread, type Step } from './schemas.js';
import { type StepSettings, StepView } from './responses.js';
import { preprocessRepo } from './repo.js';
import { now, type PreprocessDeps } from './base.js';

// Saved conditions: named lists of steps, with the parameters fitted when a run of one was registered.

/**
 * Steps as stored (a condition's or a run's): read through the lenient StepView, so a row saved before requests were
 * checked against the engine's catalogue still loads, and a key its step does not read is left out, never passed on.
 */
export const storedSteps = (json: string): StepSettings[] =>
  z
    .array(StepView)
    .parse(JSON.parse(json))
    .map((s) => {
      leaveOutUnread(s.process_type, s.method, s.params);
      return s;
    });

export function conditionView(c: PreprocessConditionTable) {
  return {
    id: c.id,
    name: c.name,
    steps: storedSteps(c.steps_json),
    datetime_column: c.datetime_column,
    source_dataset_id: c.source_dataset_id,
    fitted: c.fitted_json ? JSON.parse(c.fitted_json) : null,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

/** Saves a named condition. An existing name answers 409 (SPEC §5) unless confirmOverwrite. */
export async function saveCondition(
  d: PreprocessDeps,
  auth: AuthContext,
  b: { name: string; steps: Step[]; datetime_column?: string | null; source_dataset_id?: string | null; confirm_overwrite: boolean },
): Promise<{ condition: PreprocessConditionTable; created: boolean }> {
  const { db } = d;
  const existing = await preprocessRepo.conditionNamed(db, auth.orgId, b.name);
  if (existing && !b.confirm_overwrite) throw new AppError(409, M.conditionExists, { name: b.name }, 'name');
  const t = now();
  if (existing) {
    const patch = { steps_json: JSON.stringify(b.steps), datetime_column: b.datetime_column ?? null, source_dataset_id: b.source_dataset_id ?? null, fitted_json: null, updated_at: t };
    await preprocessRepo.updateCondition(db, auth.orgId, existing.id, patch);
    return { condition: { ...existing, ...patch }, created: false };
  }
  const row: PreprocessConditionTable = {
    id: crypto.randomUUID(),
    organisation_id: auth.orgId,
    name: b.name,
    steps_json: JSON.stringify(b.steps),
    fitted_json: null,
    datetime_column: b.datetime_column ?? null,
    source_dataset_id: b.source_dataset_id ?? null,
    created_by: auth.userId,
    created_at: t,
    updated_at: t,
  };
  try {
    await preprocessRepo.insertCondition(db, row);
  } catch (e) {
    // Two saves of one new name at once: the unique index decides, the loser hears 409 like any duplicate.
    if (await preprocessRepo.conditionNamed(db, auth.orgId, b.name)) throw new AppError(409, M.conditionExists, { name: b.name }, 'name');
    throw e;
  }
  return { condition: row, created: true };
}


export async function deleteCondition(d: PreprocessDeps, auth: AuthContext, id: string) {
  const { db, getCondition } = d;
  await getCondition(auth, id);
  await preprocessRepo.deleteCondition(db, auth.orgId, id);
  return { id };
}
