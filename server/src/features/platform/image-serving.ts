/**
 * Hosted image models (issue 31 §3): an image OK/NG or image classification model behind POST /serve/{key}/predict.
 *
 * One image per request: multipart/form-data with the file in the field `image`, or JSON `{"image": "<base64>"}`;
 * `heatmap` (a form field, a JSON field or the query) asks for the heat-map PNG too. The key checks, the lock, the
 * rate limits and the statistics are the gateway's (gateway.ts), as for table models; this module reads the image,
 * refuses what is not a JPEG, PNG, BMP or TIFF image of at most IMAGE_MAX_BYTES, and has a serving process
 * (engine/mitate_engine/platform/images.py) score it the way the prediction job does, at the threshold in force.
 *
 * The threshold in force is the image area's (images/service.ts): the threshold saved on the image project's model,
 * read again at most every cacheMs. Once that model is trained again (another run) the API keeps its own copy of the
 * first model, and with it the threshold in force when it was published (image.json in the API's model folder).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { storedJson } from '../../db/stored.js';
import { AppError } from '../../http/errors.js';
import { engineErrorMessage } from '../../i18n/engine-errors.js';
import { IMAGE_TYPES, imageReport } from '../images/schemas.js';
import type { RunService } from '../training/runs.js';
import type { TrainingModelTable } from '../training/db.js';
import { modelSummary } from '../training/stored.js';
import type { PlatformProjectTable } from './db.js';
import { IM } from './image-messages.js';
import { M } from './messages.js';
import type { ServingPool } from './serving.js';
import type { DriftSampler } from './drift/sampler.js';

/** The largest image accepted (the file's bytes): its base64 in JSON stays below the 10 MiB JSON body limit. */
export const IMAGE_MAX_BYTES = 7 * 1024 * 1024;
export const IMAGE_FORMATS = ['jpeg', 'png', 'bmp', 'tiff'] as const;
/** What a hosted image API copies from the trained model's folder, and the note it writes beside it. */
export const IMAGE_MODEL_FILE = 'model.pt';
const NOTE_FILE = 'image.json';
/** The scores the drift check compares served scores with (drift/service.ts): an OK/NG model's validation OK images',
 * a classification model's validation images' (its score is the top class probability). */
const DRIFT_REFERENCE_FILE = 'drift_reference.json';
const driftReference = z.object({ ok_scores: z.array(z.number()) });

export const isImageModel = (projectType: string) => (IMAGE_TYPES as readonly string[]).includes(projectType);

/** The format of an image file by its first bytes: one accepted, another image format by name, or null. */
export function sniffImage(b: Buffer): { accepted: (typeof IMAGE_FORMATS)[number] } | { other: string } | null {
  const starts = (...bytes: number[]) => bytes.every((v, i) => b[i] === v);
  if (starts(0xff, 0xd8, 0xff)) return { accepted: 'jpeg' };
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return { accepted: 'png' };
  if (starts(0x42, 0x4d) && b.length >= 26) return { accepted: 'bmp' };
  if (starts(0x49, 0x49, 0x2a, 0x00) || starts(0x4d, 0x4d, 0x00, 0x2a)) return { accepted: 'tiff' };
  const ascii = (from: number, to: number) => b.subarray(from, to).toString('latin1');
  if (ascii(0, 4) === 'GIF8') return { other: 'GIF' };
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return { other: 'WebP' };
  if (ascii(4, 8) === 'ftyp') return { other: /^(avif|avis)/.test(ascii(8, 12)) ? 'AVIF' : /^(heic|heix|mif1|msf1)/.test(ascii(8, 12)) ? 'HEIF' : 'ISO media' };
  if (starts(0x00, 0x00, 0x01, 0x00)) return { other: 'ICO' };
  if (starts(0x25, 0x50, 0x44, 0x46)) return { other: 'PDF' };
  if (ascii(0, 5) === '<?xml' || ascii(0, 4) === '<svg') return { other: 'SVG' };
  if (starts(0xff, 0x4f, 0xff, 0x51) || starts(0x00, 0x00, 0x00, 0x0c, 0x6a, 0x50)) return { other: 'JPEG 2000' };
  return null;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const mb = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

/** `heatmap` as sent: a boolean, or the text of a form field or the query. */
function flag(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|1|false|0)$/i.test(v.trim())) return /^(true|1)$/i.test(v.trim());
  throw new AppError(422, IM.imageHeatmapFlag, {}, 'heatmap');
}

/** The image of a request (its bytes as base64) and whether the heat-map is asked for. */
export async function readImageRequest(req: FastifyRequest): Promise<{ base64: string; bytes: Buffer; heatmap: boolean }> {
  const query = (req.query ?? {}) as Record<string, unknown>;
  let heatmap = flag(query.heatmap);
  if (req.isMultipart()) {
    let bytes: Buffer | null = null;
    try {
      for await (const part of req.parts({ limits: { fileSize: IMAGE_MAX_BYTES, files: 1, fields: 8, parts: 9 } })) {
        if (part.type === 'file') {
          if (part.fieldname !== 'image') {
            part.file.resume();
            continue;
          }
          bytes = await part.toBuffer();
        } else if (part.fieldname === 'heatmap') heatmap = heatmap || flag(part.value);
      }
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'FST_REQ_FILE_TOO_LARGE') throw new AppError(413, IM.imageTooLarge, { size: mb(IMAGE_MAX_BYTES) });
      if (code === 'FST_FILES_LIMIT') throw new AppError(422, IM.imageOnePerRequest, {}, 'image');
      throw e;
    }
    if (!bytes) throw new AppError(422, IM.imageMissing, {}, 'image');
    return { base64: bytes.toString('base64'), bytes, heatmap };
  }
  const body = req.body as unknown;
  const image = body && typeof body === 'object' && !Array.isArray(body) ? (body as { image?: unknown }).image : undefined;
  if (typeof image !== 'string' || !image) throw new AppError(422, IM.imageMissing, {}, 'image');
  heatmap = heatmap || flag((body as { heatmap?: unknown }).heatmap);
  // a data URL's head (data:image/png;base64,) and line breaks are allowed; base64url characters read as base64
  const text = image.replace(/^data:[\w.+/-]*;base64,/, '').replace(/\s+/g, '').replace(/-/g, '+').replace(/_/g, '/');
  if (text.length % 4 === 1 || !BASE64.test(text)) throw new AppError(422, IM.imageNotBase64, {}, 'image');
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length > IMAGE_MAX_BYTES) throw new AppError(413, IM.imageTooLarge, { size: mb(IMAGE_MAX_BYTES) });
  return { base64: bytes.toString('base64'), bytes, heatmap };
}

/** An accepted image, or the refusal that says why not (empty, another image format, not an image). */
export function checkImage(bytes: Buffer): void {
  if (!bytes.length) throw new AppError(422, IM.imageMissing, {}, 'image');
  const f = sniffImage(bytes);
  if (!f) throw new AppError(422, IM.imageNotImage, {}, 'image');
  if ('other' in f) throw new AppError(422, IM.imageFormat, { format: f.other }, 'image');
}

/** What an image model's hosted API says about itself (the project page, the OpenAPI document). */
export const imageServingView = z
  .object({
    kind: z.enum(IMAGE_TYPES).describe('analysis: OK/NG; classification: one of the classes'),
    algorithm: z.string(),
    classes: z.array(z.string()),
    image_size: z.number().int().describe('the side in pixels every image is resized to before scoring'),
    threshold: z.number().nullable().describe('OK/NG: the threshold in force when the API was published (each answer says the one it used)'),
    formats: z.array(z.string()),
    max_bytes: z.number().int(),
  })
  .meta({ id: 'HostedImageModel' });
export type ImageServingView = z.infer<typeof imageServingView>;

/** The note of a hosted image API (NOTE_FILE), as copyImageModel writes it. */
const note = z.object({ run_key: z.string().nullable(), algorithm: z.string(), kind: z.enum(IMAGE_TYPES), classes: z.array(z.string()), image_size: z.number(), threshold: z.number().nullable() });
type Note = z.output<typeof note>;

/** What publishing reads of a trained image model's report.json (the images area's declaration; each key optional,
 * as the copy has done without it). */
const publishedReport = imageReport.pick({ algorithm: true, classes: true, image_size: true, threshold: true, scores: true }).partial();

/** The threshold in force on a trained image model: the one saved on it (update/threshold), else training's. */
export function thresholdOf(m: Pick<TrainingModelTable, 'summary_json'>, report: { threshold?: number | null }): number | null {
  let saved: { threshold?: number | null } = {};
  try {
    saved = modelSummary(m); // the one saved by update/threshold (images/threshold.ts), or training's
  } catch {
    /* no summary: training's */
  }
  return typeof saved.threshold === 'number' ? saved.threshold : (report.threshold ?? null);
}

/**
 * The files of a trained image model for its hosted API (into `tmp`): the model and a note of what it is and of the
 * threshold in force now. Throws 409 model_files_missing when the model has no file.
 */
export function copyImageModel(dir: string, model: TrainingModelTable, projectType: string, tmp: string): void {
  if (!fs.existsSync(path.join(dir, IMAGE_MODEL_FILE))) throw new AppError(409, M.modelFilesMissing);
  let report: z.output<typeof publishedReport>;
  try {
    report = storedJson('image model report', publishedReport, fs.readFileSync(path.join(dir, 'report.json'), 'utf8'));
  } catch {
    throw new AppError(409, M.modelFilesMissing);
  }
  fs.copyFileSync(path.join(dir, IMAGE_MODEL_FILE), path.join(tmp, IMAGE_MODEL_FILE));
  const note: Note = {
    run_key: model.run_key,
    algorithm: report.algorithm ?? model.algorithm,
    kind: projectType as Note['kind'],
    classes: report.classes ?? [],
    image_size: report.image_size ?? 0,
    threshold: projectType === 'analysis' ? thresholdOf(model, report) : null,
  };
  fs.writeFileSync(path.join(tmp, NOTE_FILE), JSON.stringify(note));
  const reference = (report.scores ?? []).filter((r) => r.split === 'validation' && typeof r.score === 'number' && (projectType !== 'analysis' || r.label === 'OK')).map((r) => r.score!);
  if (reference.length) fs.writeFileSync(path.join(tmp, DRIFT_REFERENCE_FILE), JSON.stringify({ ok_scores: reference }));
}

function readNote(dir: string): Note | null {
  try {
    return storedJson('hosted image model note', note, fs.readFileSync(path.join(dir, NOTE_FILE), 'utf8'));
  } catch {
    return null;
  }
}

/** The validation scores a hosted image model's drift check compares served scores with; null when its folder keeps none. */
export function driftReferenceOf(dir: string): number[] | null {
  try {
    const ref = storedJson('drift reference', driftReference, fs.readFileSync(path.join(dir, DRIFT_REFERENCE_FILE), 'utf8'));
    return ref.ok_scores.length ? ref.ok_scores : null;
  } catch {
    return null; // no reference file
  }
}

/** The description of a hosted image API from its model folder, or null (not an image model, or no note). */
export function imageServingOf(dir: string): ImageServingView | null {
  const n = readNote(dir);
  if (!n) return null;
  return { kind: n.kind, algorithm: n.algorithm, classes: n.classes, image_size: n.image_size, threshold: n.threshold, formats: [...IMAGE_FORMATS], max_bytes: IMAGE_MAX_BYTES };
}

/** The answer of one image (engine/mitate_engine/platform/images.py). */
export type ImageAnswer = { kind: string; predicted: string; score: number; threshold: number | null; probabilities: Record<string, number> | null; heatmap_png?: string; timing?: Partial<Record<Stage, number>> };

/** Where an image request's time went (ms), as the Server-Timing header says it: the request read and checked here,
 * the threshold in force, the round trip to the serving process, and in that process the image decoded, the model
 * run and the heat-map drawn. */
const STAGES = {
  read: 'request read and checked',
  threshold: 'threshold in force',
  engine: 'serving process round trip',
  decode: 'image decoded',
  model: 'model',
  heatmap: 'heat-map',
} as const;
type Stage = keyof typeof STAGES;

export function serverTiming(ms: Partial<Record<Stage, number>>): string {
  return (Object.keys(STAGES) as Stage[])
    .filter((k) => typeof ms[k] === 'number' && Number.isFinite(ms[k]))
    .map((k) => `${k};desc="${STAGES[k]}";dur=${ms[k]!.toFixed(3)}`)
    .join(', ');
}

interface Served {
  project: PlatformProjectTable;
  head: string;
  model: { key: string; dir: string };
}

/** Answers image requests for the gateway: `answer` runs after the key, lock and rate checks. */
export function makeImageServing(pool: ServingPool, runs: Pick<RunService, 'findModel'>, cacheMs: number, drift?: Pick<DriftSampler, 'offerScores'>) {
  const thresholds = new Map<string, { at: number; value: Promise<number | null> }>();

  /** The threshold in force for a hosted OK/NG model: the image project's while it holds the same trained model. */
  function thresholdFor(r: Served): Promise<number | null> {
    const hit = thresholds.get(r.project.id);
    if (hit && Date.now() - hit.at < cacheMs) return hit.value;
    const value = (async () => {
      const note = readNote(r.model.dir);
      if (!note || note.kind !== 'analysis') return null;
      const m = await runs.findModel(r.project.organisation_id, r.project.model_project_id, r.project.model_key);
      if (m && m.state === 'done' && m.run_key === note.run_key) return thresholdOf(m, { threshold: note.threshold });
      return note.threshold;
    })();
    value.catch(() => thresholds.delete(r.project.id));
    if (thresholds.size >= 1024) thresholds.clear();
    thresholds.set(r.project.id, { at: Date.now(), value });
    return value;
  }

  return {
    async answer(r: Served, req: FastifyRequest, reply: FastifyReply) {
      const t0 = performance.now();
      const { base64, bytes, heatmap } = await readImageRequest(req);
      checkImage(bytes);
      const t1 = performance.now();
      const threshold = await thresholdFor(r);
      const t2 = performance.now();
      const result = (await pool.predict(r.model, { image: base64, heatmap, threshold })) as ImageAnswer | { error: string; code?: string | null; params?: Record<string, unknown>; status: number };
      reply.header('server-timing', serverTiming({ read: t1 - t0, threshold: t2 - t1, engine: performance.now() - t2, ...('timing' in result ? result.timing : {}) }));
      if ('error' in result) {
        if (result.code === 'serve_image_pixels') throw new AppError(413, IM.imagePixels, { pixels: Number(result.params?.pixels ?? 0), max: Number(result.params?.max ?? 0) });
        if (result.status === 422 && result.code) throw new AppError(422, { ...engineErrorMessage({ code: result.code, params: result.params }), code: result.code }, {}, 'image');
        if (result.status === 503 || result.status === 504) throw new AppError(503, M.servingBusy);
        throw new Error(result.error);
      }
      drift?.offerScores(r.project.organisation_id, r.project.id, [result.score]); // answered: its score may be sampled
      const out = { kind: result.kind, predicted: result.predicted, score: result.score, threshold: result.threshold, probabilities: result.probabilities ?? null, ...(heatmap ? { heatmap_png: result.heatmap_png ?? null } : {}) };
      return reply.send(`${r.head}${JSON.stringify(out).slice(1)}}}`);
    },
  };
}

/** The answer of a hosted image model, for the OpenAPI document (written by hand in `answer`). */
export const hostedImagePrediction = z
  .object({
    detail: z.object({
      response: z.object({
        model: z.string(),
        version: z.string(),
        kind: z.enum(IMAGE_TYPES).describe('analysis: an OK/NG model; classification: an image classification model'),
        predicted: z.string().describe('OK or NG (analysis: NG when score >= threshold), or the class (classification)'),
        score: z.number().describe('analysis: how NG the image is (PatchCore: the largest patch distance; a CNN: the NG probability); classification: the top class probability'),
        threshold: z.number().nullable().describe('analysis: the threshold in force (the one saved on the image model); classification: null'),
        probabilities: z.record(z.string(), z.number()).nullable().describe('each class with its probability (CNN models; null for PatchCore)'),
        heatmap_png: z.string().nullable().optional().describe('when asked (heatmap=true): the heat-map over the image as a base64 PNG'),
      }),
    }),
  })
  .meta({ id: 'HostedImagePrediction' });

/** The request bodies of POST /serve/{key}/predict per content type, for the OpenAPI document (the route reads
 * them itself): rows or CSV for table models, one image for image models. */
export const serveBodies = {
  'application/json': z.union([
    z.object({ rows: z.array(z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()]))).describe('table models: one object per row, each feature column with its value') }).describe('table models'),
    z.object({
      image: z.string().describe(`image models: the image file (JPEG, PNG, BMP or TIFF, at most ${mb(IMAGE_MAX_BYTES)}) as base64; a data: URL head is allowed`),
      heatmap: z.boolean().optional().describe('image models: true to get the heat-map PNG too'),
    }).describe('image models'),
  ]),
  'text/csv': z.string().describe('table models: CSV text with a header row'),
  'multipart/form-data': z.object({
    image: z.string().meta({ format: 'binary' }).describe(`image models: the image file (JPEG, PNG, BMP or TIFF, at most ${mb(IMAGE_MAX_BYTES)})`),
    heatmap: z.enum(['true', 'false']).optional().describe('image models: true to get the heat-map PNG too'),
  }),
};

/** The query of POST /serve/{key}/predict. */
export const serveQuery = z.object({ heatmap: z.enum(['true', 'false', '1', '0']).optional().describe('image models: true to get the heat-map PNG too') });

/** The route's words on image models, after the table models' (the OpenAPI document). */
export const IMAGE_SERVING_DOC =
  ' Image OK/NG and image classification models take one image per request: multipart/form-data with the file in the field `image` ' +
  '(`curl -H "X-API-Key: $KEY" -F image=@part.png -F heatmap=true https://…/serve/{key}/predict`), or JSON `{"image": "<base64>", "heatmap": false}`. ' +
  'JPEG, PNG, BMP and TIFF are accepted (by their first bytes), at most 7 MiB and 40 megapixels; the image is resized to the model\'s image size as in batch prediction. ' +
  'The answer (HostedImagePrediction) gives the class (OK/NG, or the class), the score, the threshold in force (the one saved on the image model) and, when asked, the heat-map as a base64 PNG.';
