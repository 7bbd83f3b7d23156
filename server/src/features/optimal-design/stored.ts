import { z } from 'zod';
import { storedJson } from '../../db/stored.js';
import type { OptimalDesignProjectTable, OptimalDesignRoundTable } from './db.js';
import { registerSettings, roundParameters } from './schemas.js';

/**
 * An optimal-design project's and its rounds' stored JSON (rounds.ts writes them from the parsed request bodies, with
 * every default filled; those declarations are unchanged since the first stored value), read through these readers.
 */

/** A run of an uploaded CSV (base.ts readRows): variable or result name → value. */
const StoredRow = z.record(z.string(), z.union([z.string(), z.number(), z.null()]));
const StoredRows = z.array(StoredRow);

/** settings_json: the register settings less the round's and the name, with the runs to exclude and those already done. */
export const DesignSettings = z
  .looseObject(registerSettings.omit({ name: true, comment: true, algorithm: true, n_runs: true, seed: true, starts: true, parameters: true, bo: true }).shape)
  .extend({ exclude_rows: StoredRows, existing_rows: StoredRows });
export type Settings = z.output<typeof DesignSettings>;

/** A round's parameters_json: its seed, random starts, design parameters and Bayesian-optimisation settings. */
const StoredRoundParameters = z.looseObject(roundParameters.shape);

export const designSettings = (p: Pick<OptimalDesignProjectTable, 'settings_json'>) => storedJson('optimal design settings', DesignSettings, p.settings_json);
export const roundParametersOf = (r: Pick<OptimalDesignRoundTable, 'parameters_json'>) => storedJson('design round parameters', StoredRoundParameters, r.parameters_json);
/** A round's measured results (results_json), or null before any were entered. */
export const roundResults = (r: Pick<OptimalDesignRoundTable, 'results_json'>) => (r.results_json ? storedJson('design round results', StoredRows, r.results_json) : null);
