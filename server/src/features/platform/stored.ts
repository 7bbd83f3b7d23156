import { z } from 'zod';
import { storedJson } from '../../db/stored.js';
import { ModelManifest } from '../training/stored.js';
import type { PlatformProjectTable } from './db.js';
import { settingsView } from './schemas.js';

// A hosted API's stored JSON: its settings column and the model manifest copied beside it.

/**
 * A platform project's settings_json: the SPEC §3 fields as createDraft and update write them, every field present
 * (the request's defaults were applied when it was given), the shape answered as PlatformSettings. Loose: a key
 * another writer added is kept, and an edit stores it back.
 */
const storedSettings = z.looseObject(settingsView.shape);
export type StoredSettings = z.output<typeof storedSettings>;

/** The settings of a platform project. */
export const platformSettings = (p: Pick<PlatformProjectTable, 'settings_json'>): StoredSettings => storedJson('platform project settings', storedSettings, p.settings_json);

// The serving path reads only the version: rows written outside the app (tests, older tools) may hold fewer fields.
const versionOnly = storedSettings.pick({ version: true }).partial();

/** The API's version as a prediction answer carries it ('' when none is stored). */
export const settingsVersion = (p: Pick<PlatformProjectTable, 'settings_json'>): string => String(storedJson('platform project settings', versionOnly, p.settings_json).version ?? '');

/**
 * The manifest.json of a hosted model, copied from its training run: training's declaration, every key optional, as
 * the hosted API reads only some of them and an older run may lack one; the others are kept as written.
 */
export const hostedManifest = ModelManifest.partial();
export type HostedManifest = z.output<typeof hostedManifest>;
