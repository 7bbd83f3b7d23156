import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { storedJson } from '../../db/stored.js';
import { AppError } from '../../http/errors.js';
import type { LocalText } from '../../i18n/messages.js';
import type { PlatformProjectTable } from './db.js';
import { readNumbers } from './inputs.js';
import { hostedManifest, settingsVersion } from './stored.js';
import { M } from './messages.js';
import type { ServeInput, ServeResult, ServingPool } from './serving.js';
import { describeTs, type StreamLimits, tsOpenApi } from './timeseries-describe.js';

/**
 * POST /serve/{key}/predict for a time-series detector (the gateway hands such projects here after its key, status,
 * lock and rate checks, so billing and refusals are the tabular path's). Two bodies:
 *
 * - a block: {"rows": [...]} (or an array, one row object, or CSV text), with the time column; scored by the batch
 *   path in a serving process (engine/mitate_engine/platform/timeseries.py), each row's answer the batch prediction's;
 * - a stream: {"series": "<id>", "rows": [...]}: this server keeps the series' recent rows (StreamStore) and sends
 *   them with the new ones; the engine answers the new rows and says which kept rows the next call can do without.
 *
 * Where streams live: in this server process's memory, at most `maxSeries` series (the least recently used go
 * first), each dropped after `idleMinutes` without a call; a series keeps its rows whole up to `exactRows` (answers
 * then equal the whole block's), then only the rows the next score needs, never more than `maxRows`. A restart
 * forgets every series (its next rows warm up again, as at a series' start; `kept_rows` in the answer says so), and
 * several servers do not share them: a client that streams must reach the same server, or send blocks.
 */

export const TM = {
  badSeries: { en: '"series" must be a text of 1 to 100 characters (your id for the stream).', ja: '「series」は1〜100文字のテキスト（ストリームのID）にしてください。', code: 'tsad_series_invalid' },
  notTimeSeries: { en: 'This API does not host a time-series detector.', ja: 'このAPIは時系列の異常検知モデルではありません。', code: 'not_time_series' },
  streamNeedsJson: { en: 'A stream ("series") takes JSON rows: {"series": "id", "rows": [{...}]}.', ja: 'ストリーム（「series」）はJSONの行で送ってください: {"series": "ID", "rows": [{...}]}', code: 'tsad_stream_needs_json' },
} satisfies Record<string, LocalText>;

interface StreamState {
  start: number;
  p0: number;
  carry: (number | null)[] | null;
}
interface Series {
  rows: Record<string, unknown>[];
  state: StreamState | null;
  at: number;
  /** The call in progress: the next waits for it, so a series' rows go in the order they arrived. */
  tail: Promise<unknown>;
}

/** The kept series of every hosted detector on this server, least recently used first. */
export class StreamStore {
  private series = new Map<string, Series>();
  constructor(private limits: StreamLimits) {}

  /** Runs `fn` on the series (made empty when new), one call at a time per series. */
  async with<T>(key: string, fn: (s: Series) => Promise<T>): Promise<T> {
    this.sweep();
    let s = this.series.get(key);
    if (s) this.series.delete(key);
    else s = { rows: [], state: null, at: Date.now(), tail: Promise.resolve() };
    this.series.set(key, s); // most recent last
    while (this.series.size > this.limits.maxSeries) this.series.delete(this.series.keys().next().value!);
    const run = s.tail.then(() => fn(s));
    s.tail = run.catch(() => undefined);
    s.at = Date.now();
    return run;
  }

  /** Series without a call for idleMinutes are forgotten. */
  private sweep(now = Date.now()) {
    const limit = this.limits.idleMinutes * 60_000;
    for (const [k, s] of this.series) {
      if (now - s.at <= limit) break; // oldest first: the rest are newer
      this.series.delete(k);
    }
  }

  /** Forgets a project's series (the API stopped, deleted or changed). */
  forget(projectId: string) {
    for (const k of this.series.keys()) if (k.startsWith(`${projectId}\u0000`)) this.series.delete(k);
  }

  get size() {
    return this.series.size;
  }
}

export interface TsResolved {
  project: PlatformProjectTable;
  model: { key: string; dir: string };
  head: string;
  numeric: string[];
}

type TsAnswer = { outputs: string[]; predictions: Record<string, unknown>[]; time_series: Record<string, unknown>; state?: StreamState & { drop: number } };

export function isTsModel(type: string): boolean {
  return type.startsWith('time_series_anomaly_detection');
}

export function makeTsServing(deps: {
  pool: ServingPool;
  /** The threshold saved for the model in its project (the one in force), or null: training's applies. */
  savedThreshold: (p: PlatformProjectTable) => Promise<number | null>;
  /** The engine's refusal as the gateway answers it (422 with the catalogue code, 503 busy, else a fault). */
  refuse: (r: Extract<ServeResult, { error: string }>) => Error;
  limits: StreamLimits;
}) {
  const limits = deps.limits;
  const store = new StreamStore(limits);
  // the saved threshold per project, read at most once a second (saving one takes effect within that)
  const thresholds = new Map<string, { value: number | null; at: number }>();
  async function thresholdOf(p: PlatformProjectTable): Promise<number | null> {
    const hit = thresholds.get(p.id);
    if (hit && Date.now() - hit.at < 1000) return hit.value;
    const value = await deps.savedThreshold(p);
    if (thresholds.size > 4096) thresholds.clear();
    thresholds.set(p.id, { value, at: Date.now() });
    return value;
  }

  function bodyOf(req: FastifyRequest): { input: ServeInput; series: string | null } {
    const b = req.body as unknown;
    if (typeof b === 'string') return { input: { csv: b }, series: null };
    if (Array.isArray(b)) return { input: { rows: b as Record<string, unknown>[] }, series: null };
    if (b && typeof b === 'object') {
      const o = b as { rows?: unknown; series?: unknown };
      if (o.series !== undefined) {
        if (typeof o.series !== 'string' || !o.series.trim() || o.series.length > 100) throw new AppError(422, TM.badSeries, {}, 'series');
        if (!Array.isArray(o.rows)) throw new AppError(422, TM.streamNeedsJson, {}, 'rows');
        return { input: { rows: o.rows as Record<string, unknown>[] }, series: o.series };
      }
      if (Array.isArray(o.rows)) return { input: { rows: o.rows as Record<string, unknown>[] }, series: null };
      return { input: { rows: [b as Record<string, unknown>] }, series: null };
    }
    throw new AppError(422, M.badBody, {}, 'body');
  }

  async function ask(r: TsResolved, input: ServeInput): Promise<TsAnswer> {
    const result = await deps.pool.predict(r.model, input);
    if ('error' in result) throw deps.refuse(result);
    if (!('predictions' in result)) throw new Error('a serving plan where a prediction was expected');
    return result as unknown as TsAnswer;
  }

  async function handle(r: TsResolved, req: FastifyRequest, reply: FastifyReply) {
    const { input, series } = bodyOf(req);
    let rows = 'rows' in input ? input.rows : null;
    if (rows && r.numeric.length) {
      const read = readNumbers(rows, r.numeric);
      if ('refused' in read) throw deps.refuse({ error: 'not a number', code: 'inference_not_numeric', params: read.refused, column: read.refused.column, status: 422 });
      rows = read.rows as Record<string, unknown>[];
    }
    const threshold = await thresholdOf(r.project);
    const t0 = performance.now();
    let answer: TsAnswer;
    if (series === null) {
      answer = await ask(r, { ...(rows ? { rows } : input), tsad: { threshold } } as unknown as ServeInput);
      answer.time_series.kept_rows = null;
    } else {
      answer = await store.with(`${r.project.id}\u0000${series}`, async (s) => {
        const got = await ask(r, { rows: rows!, tsad: { threshold, stream: { series, history: s.rows, state: s.state } } } as unknown as ServeInput);
        const st = got.state!;
        s.rows = [...s.rows, ...rows!].slice(st.drop);
        s.state = { start: st.start, p0: st.p0, carry: st.carry };
        delete got.state;
        got.time_series.kept_rows = s.rows.length;
        return got;
      });
    }
    reply.header('server-timing', `predict;desc="engine";dur=${(performance.now() - t0).toFixed(3)}`);
    const { outputs, predictions, time_series } = answer;
    return reply.send(`${r.head}"outputs":${JSON.stringify(outputs)},"predictions":${JSON.stringify(predictions)},"time_series":${JSON.stringify(time_series)}}}}`);
  }

  return { handle, store, limits, forget: (projectId: string) => store.forget(projectId) };
}

/** The interface of a hosted detector for its project page and its clients: the description and the API's own
 * OpenAPI document. `timeIsDatetime` comes from the model's training project (null when it is gone). */
export async function describeTsProject(
  p: PlatformProjectTable,
  deps: { dir: string; endpoint: string; timeIsDatetime: boolean | null; savedThreshold: number | null; limits: StreamLimits },
) {
  if (!isTsModel(p.model_type)) throw new AppError(404, TM.notTimeSeries);
  const manifest = storedJson('hosted model manifest', hostedManifest, await fs.readFile(path.join(deps.dir, 'manifest.json'), 'utf8'));
  const d = describeTs(manifest, { timeIsDatetime: deps.timeIsDatetime, savedThreshold: deps.savedThreshold, limits: deps.limits });
  const version = settingsVersion(p);
  return { ...d, openapi: JSON.stringify(tsOpenApi(d, { name: p.name, version, endpoint: deps.endpoint, key: p.key })) };
}
