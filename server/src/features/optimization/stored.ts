import { z } from 'zod';
import { storedJson } from '../../db/stored.js';
import type { OptimizationProjectTable } from './db.js';
import { settingsBody } from './schemas.js';

/** A model as resolved at registration, without its manifest and folder (runs.ts register): the project view names it. */
const ModelInfo = z.looseObject({ project_id: z.string(), project_name: z.string(), model_key: z.string(), algorithm: z.string(), target: z.string(), dataset_id: z.string() });

/**
 * A project's settings_json: the register body's settings as parsed then (every default filled; the declaration is
 * unchanged since the first stored value) with the models resolved.
 */
export const StoredSettings = z.looseObject(settingsBody.shape).extend({ model_info: z.array(ModelInfo) });
export const projectSettings = (p: Pick<OptimizationProjectTable, 'settings_json'>) => storedJson('optimization settings', StoredSettings, p.settings_json);
