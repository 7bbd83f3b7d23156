import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type AuthContext, requireWriter } from '../../auth/guard.js';
import { AppError, ok } from '../../http/errors.js';
import { langOf } from '../../i18n/messages.js';
import { errorReplies, fileReplies, IdView, replies } from '../../http/responses.js';
import { M } from './messages.js';
import type { ImagePreprocess } from './preprocess.js';
import { tsModel } from '../timeseries/schemas.js';
import { renameBody } from '../training/schemas.js';
import {
  galleryQuery,
  imageDatasetRegisterBody,
  imageDetailView,
  imageGalleryPage,
  imageModelView,
  imagePredictionStarted,
  imagePreprocessBody,
  imageProjectView,
  imageTrainProgress,
  modelParams,
  projectIdParams,
  thresholdBody,
} from './schemas.js';
import { imageOperations } from '../datasets/history.js';
import { imageDatasetView } from '../datasets/responses.js';

const tags = ['image'];
type ImageInput = Parameters<FastifyInstance['services']['predictions']['predictImages']>[3];
const IMAGE_EXT = ['.jpg', '.jpeg', '.png', '.bmp', '.tif', '.tiff'];
const CONTENT: Record<string, string> = { '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.png': 'image/png', '.bmp': 'image/bmp', '.tif': 'image/tiff', '.tiff': 'image/tiff' };
const idParams = z.object({ id: z.string().max(64) });
/** Every answer is SPEC §8's envelope; the inner objects are described loosely and keep all their fields. */
const envelope = (inner: z.ZodType) => ({ 200: z.object({ detail: z.object({ response: inner }) }) });
const modelShape = imageModelView;
const projectShape = imageProjectView;
const detailShape = imageDetailView;
const datasetShape = imageDatasetView;
/** An image answer: whichever of the types a browser shows (TIFF originals come as PNG unless asked for as they are). */
const imageReplies = (description: string, types = ['image/jpeg', 'image/png', 'image/bmp', 'image/tiff']) => ({
  200: { description, content: Object.fromEntries(types.map((t) => [t, { schema: z.any().meta({ type: 'string', format: 'binary' }) }])) },
  ...errorReplies,
});
const previewShape = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      label: z.string().nullable(),
      before_size: z.array(z.number()).describe('[width, height] of the original'),
      after_size: z.array(z.number()).describe('[width, height] after the operations'),
      mode: z.string(),
      before: z.string().describe('PNG data URL, at most 320 pixels'),
      after: z.string().describe('PNG data URL, at most 320 pixels'),
    }),
  ),
}).meta({ id: 'ImagePreprocessPreview' });
const runStarted = z.object({ temp_id: z.string(), job_id: z.string(), state: z.string(), source_dataset_id: z.string() }).meta({ id: 'ImagePreprocessStarted' });
const countsShape = z.record(z.string(), z.record(z.string(), z.number()));
const runShape = z.object({
  temp_id: z.string(),
  source_dataset_id: z.string(),
  state: z.string(),
  progress: z.number(),
  error: z.string().nullable(),
  dataset_id: z.string().nullable().describe('The dataset it was registered as, once registered'),
  result: z
    .object({ total: z.number(), counts: countsShape, classes: z.array(z.string()), skipped: z.array(z.object({ entry: z.string(), reason: z.string() })), operations: imageOperations })
    .nullable(),
  sample: z.array(z.object({ id: z.string(), label: z.string().nullable(), split: z.string(), width: z.number(), height: z.number() })),
}).meta({ id: 'ImagePreprocessRun' });
const predictionShape = imagePredictionStarted;

const fileHeaders = (reply: FastifyReply, type: string, download?: string) => {
  reply.header('content-type', type);
  reply.header('cache-control', 'private, max-age=3600');
  if (download) reply.header('content-disposition', `attachment; filename="${download.replace(/[^\w.-]+/g, '_')}"; filename*=UTF-8''${encodeURIComponent(download)}`);
};
const sendFile = (reply: FastifyReply, file: string, type: string, download?: string) => {
  if (!fs.existsSync(file)) throw new AppError(404, M.imageNotFound);
  fileHeaders(reply, type, download);
  return reply.send(fs.createReadStream(file));
};

/** The uploaded images (or one ZIP) of a prediction saved into `inputs`, under numbered names (ids never become paths). */
async function receiveImages(req: FastifyRequest, inputs: string, maxUploadMb: number) {
  const files: { path: string; name: string }[] = [];
  let zip: string | null = null;
  for await (const part of req.parts({ limits: { fileSize: maxUploadMb * 1024 * 1024, files: 500 } })) {
    if (part.type !== 'file') continue;
    const ext = path.extname(part.filename || '').toLowerCase();
    if (ext !== '.zip' && !IMAGE_EXT.includes(ext)) {
      part.file.resume();
      throw new AppError(422, M.notImageFile, { name: part.filename }, 'files');
    }
    const dest = path.join(inputs, `${String(files.length).padStart(6, '0')}${ext}`);
    await pipeline(part.file, fs.createWriteStream(dest));
    if (part.file.truncated) throw new AppError(413, 'file_too_large', { size: `${maxUploadMb} MB` });
    if (ext === '.zip') zip = dest;
    else files.push({ path: dest, name: path.basename(part.filename) });
  }
  return { files, zip };
}

export default async function imageRoutes(app: FastifyInstance) {
  const pre = app.services.imagePreprocess;
  // registered in this order: the OpenAPI document lists the paths so
  datasetRoutes(app, pre);
  preprocessRoutes(app, pre);
  trainingRoutes(app);
  resultRoutes(app);
  predictionRoutes(app);
}

function datasetRoutes(app: FastifyInstance, pre: ImagePreprocess) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const svc = app.services.images;
  r.get('/image/dataset/:id', { schema: { tags, summary: 'An image dataset: classes, counts per class and split, skipped ZIP entries', params: idParams, response: envelope(datasetShape) } }, async (req) =>
    ok(await svc.summary(req.auth, req.params.id, langOf(req.headers['accept-language']))),
  );
  r.get(
    '/image/dataset/:id/gallery',
    { schema: { tags, summary: 'A page of the images (thumbnails at /image/dataset/{id}/image/{image_id}?thumb=1)', params: idParams, querystring: galleryQuery, response: envelope(imageGalleryPage) } },
    async (req) => ok(await svc.gallery(req.auth, req.params.id, req.query)),
  );
  r.get(
    '/image/dataset/:id/image/:image_id',
    {
      schema: {
        tags,
        summary: 'One image at full size (a TIFF as PNG for the browser; original=1 for the file as uploaded), or its thumbnail',
        params: z.object({ id: z.string().max(64), image_id: z.string().regex(/^\d{1,9}$/) }),
        querystring: z.object({ thumb: z.coerce.number().int().min(0).max(1).default(0), original: z.coerce.number().int().min(0).max(1).default(0) }),
        response: imageReplies('The image'),
      },
    },
    async (req, reply) => {
      const { id, image_id } = req.params;
      const file = req.query.thumb === 1 || req.query.original === 1 ? await svc.imageFile(req.auth, id, image_id, req.query.thumb === 1) : await pre.displayFile(req.auth, id, image_id);
      return sendFile(reply, file, CONTENT[path.extname(file).toLowerCase()] ?? 'application/octet-stream');
    },
  );

}

function preprocessRoutes(app: FastifyInstance, pre: ImagePreprocess) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    '/image/preprocess/:dataset_id',
    {
      preHandler: requireWriter,
      schema: {
        tags,
        summary: 'Pre-process every image of a dataset (crop, rotate, flip, resize, grayscale, brightness, contrast, normalise): a job whose id is the temp_id. With preview: true, before/after of a few images at once.',
        params: z.object({ dataset_id: z.string().max(64) }),
        body: imagePreprocessBody,
        response: replies({ 200: z.union([runStarted, previewShape]) }),
      },
    },
    async (req) => {
      const b = req.body;
      return ok(b.preview ? await pre.preview(req.auth, req.params.dataset_id, b.operations, b.ids) : await pre.start(req.auth, req.params.dataset_id, b.operations, langOf(req.headers['accept-language'])));
    },
  );
  r.get('/image/preprocess/result/:temp_id', { schema: { tags, summary: 'State of a pre-processing run, its counts and a sample of the processed images', params: z.object({ temp_id: z.string().max(64) }), response: replies({ 200: runShape }) } }, async (req) =>
    ok(await pre.result(req.auth, req.params.temp_id, langOf(req.headers['accept-language']))),
  );
  r.get(
    '/image/preprocess/result/:temp_id/thumb/:image_id',
    { schema: { tags, summary: 'Thumbnail of a processed image (before registering)', params: z.object({ temp_id: z.string().max(64), image_id: z.string().regex(/^\d{1,9}$/) }), response: imageReplies('JPEG thumbnail', ['image/jpeg']) } },
    async (req, reply) => sendFile(reply, await pre.thumbFile(req.auth, req.params.temp_id, req.params.image_id), 'image/jpeg'),
  );
  r.post(
    '/image/new_dataset/register/:temp_id',
    {
      preHandler: requireWriter,
      schema: { tags, summary: 'Register the pre-processed images as a new image dataset (labels and splits kept)', params: z.object({ temp_id: z.string().max(64) }), body: imageDatasetRegisterBody, response: replies({ 200: datasetShape }) },
    },
    async (req) => ok(await pre.register(req.auth, req.params.temp_id, req.body, langOf(req.headers['accept-language']))),
  );

}

function trainingRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const svc = app.services.images;
  const trainBody = z.object({ model_keys: z.array(z.string().max(100)).optional() }).nullish();
  r.post('/train/:project_id', { preHandler: requireWriter, schema: { tags, summary: 'Train the image models of a project (a job; poll image/train/result)', params: projectIdParams, body: trainBody, response: envelope(projectShape) } }, async (req) =>
    ok(await svc.train(req.auth, req.params.project_id, req.body?.model_keys, langOf(req.headers['accept-language']))),
  );
  r.post(
    '/train/progress/:task_id',
    { schema: { tags, summary: 'State and progress of a training job, with the epoch curves so far', params: z.object({ task_id: z.string().max(64) }), response: envelope(imageTrainProgress) } },
    async (req) => ok(await svc.trainProgress(req.auth, req.params.task_id)),
  );
  r.get('/training/model_list/:project_id', { schema: { tags, summary: 'The models of an image project', params: projectIdParams, response: envelope(z.array(modelShape)) } }, async (req) =>
    ok((await svc.view(req.auth, await svc.getProject(req.auth, req.params.project_id))).models),
  );
  r.get(
    '/image/project/list',
    {
      schema: {
        tags,
        summary: 'The image projects of the organisation (newest first), optionally of one type',
        querystring: z.object({ project_type: z.enum(['analysis', 'classification']).optional() }),
        response: replies({ 200: z.array(z.object({ project_id: z.string(), name: z.string(), project_type: z.string(), training_state: z.string(), dataset_id: z.string(), created_at: z.string() })) }),
      },
    },
    async (req) => ok(await svc.list(req.auth, req.query.project_type)),
  );
  r.get('/image/train/result/:project_id', { schema: { tags, summary: 'Training state, progress, epoch curves and model results', params: projectIdParams, response: envelope(projectShape) } }, async (req) =>
    ok(await svc.view(req.auth, await svc.getProject(req.auth, req.params.project_id))),
  );
  r.get('/stop/image/train/:id', { preHandler: requireWriter, schema: { tags, summary: 'Stop training within one batch, keeping the best checkpoint (id: the project)', params: idParams, response: envelope(projectShape) } }, async (req) =>
    ok(await svc.stop(req.auth, req.params.id)),
  );
  r.delete('/project/delete/:id', { preHandler: requireWriter, schema: { tags, summary: 'Delete an image project (analysis, classification), its models and files', params: idParams, response: envelope(IdView) } }, async (req) =>
    ok(await svc.remove(req.auth, req.params.id)),
  );
  r.put('/image/project/:project_id', { preHandler: requireWriter, schema: { tags, summary: 'Rename an image project (in any state)', params: projectIdParams, body: renameBody, response: envelope(projectShape) } }, async (req) =>
    ok(await svc.rename(req.auth, req.params.project_id, req.body.name)),
  );

}

function resultRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { images: svc, timeSeries, runs } = app.services;
  r.get('/detail/:project_id/:model_key', { schema: { tags, summary: 'Metrics, confusion matrix, gallery, held-out scores and threshold of a model', params: modelParams, response: envelope(detailShape) } }, async (req) =>
    ok(await svc.detail(req.auth, req.params.project_id, req.params.model_key, langOf(req.headers['accept-language']))),
  );
  r.post(
    '/update/threshold/:project_id/:model_key',
    {
      preHandler: requireWriter,
      schema: {
        tags,
        summary: "Save a model's threshold. OK/NG images: a value, a target miss rate or a percentile of validation OK scores; time-series detectors: a value (predictions after this use it)",
        params: modelParams,
        body: thresholdBody,
        response: envelope(z.union([detailShape, tsModel]).describe('An image model’s detail, or a time-series detector')),
      },
    },
    async (req) => {
      // SPEC §7 has one path for every model with a threshold: the project's type says whose it is.
      const project = await runs.find(req.auth.orgId, req.params.project_id);
      if (project?.project_type.startsWith('time_series')) {
        if (req.body.threshold === undefined) throw new AppError(422, { en: 'Give the threshold as a number.', ja: 'しきい値を数値で指定してください。' }, {}, 'threshold');
        return ok(await timeSeries.saveThreshold(req.auth, req.params.project_id, req.params.model_key, req.body.threshold, langOf(req.headers['accept-language'])));
      }
      return ok(await svc.updateThreshold(req.auth, req.params.project_id, req.params.model_key, req.body, langOf(req.headers['accept-language'])));
    },
  );
  const modelFile = (req: { auth: AuthContext; params: { project_id: string; model_key: string } }, name: string) => svc.modelFile(req.auth, req.params.project_id, req.params.model_key, name);
  r.get(
    '/image/train/heatmap/:project_id/:model_key/:image_id',
    { schema: { tags, summary: 'Heat-map of a test image (Grad-CAM or PatchCore patch distances)', params: modelParams.extend({ image_id: z.string().regex(/^\d{1,9}$/) }), response: fileReplies('image/png', 'Heat-map PNG') } },
    async (req, reply) => sendFile(reply, await modelFile(req, `heatmaps/${req.params.image_id}.png`), 'image/png'),
  );
  r.get('/report/:project_id/:model_key', { schema: { tags, summary: "A model's report as one self-contained HTML file, in the caller's language (Accept-Language)", params: modelParams, response: fileReplies('text/html', 'report.html') } }, async (req, reply) => {
    const { html, keep } = await svc.report(req.auth, req.params.project_id, req.params.model_key, langOf(req.headers['accept-language']));
    fileHeaders(reply, 'text/html; charset=utf-8', `${req.params.model_key}-report.html`);
    if (!keep) reply.header('cache-control', 'no-store'); // a threshold saved after training: its notice changes with it
    return reply.send(html);
  });
  r.get('/image/model/download/:project_id/:model_key', { schema: { tags, summary: 'The trained model (model.pt: weights, classes, image size, threshold)', params: modelParams, response: fileReplies('application/octet-stream', 'model.pt') } }, async (req, reply) =>
    sendFile(reply, await modelFile(req, 'model.pt'), 'application/octet-stream', `${req.params.model_key}.pt`),
  );

}

function predictionRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { predictions } = app.services;
  r.post(
    '/prediction/result/:project_id/:model_key',
    { preHandler: requireWriter, schema: { tags, summary: 'Predict images: multipart files (images or one ZIP), or JSON {dataset_id} of an image dataset', params: modelParams, consumes: ['multipart/form-data', 'application/json'], response: envelope(predictionShape) } },
    async (req) => {
      const lang = langOf(req.headers['accept-language']);
      // multipart: the images (or one ZIP) saved under numbered names; JSON: an image dataset of the organisation
      const input: ImageInput = req.isMultipart()
        ? { receive: (inputs: string) => receiveImages(req, inputs, app.ctx.config.maxUploadMb) }
        : { datasetId: z.object({ dataset_id: z.string().max(64) }).safeParse(req.body).data?.dataset_id };
      return ok(await predictions.predictImages(req.auth, req.params.project_id, req.params.model_key, input, lang));
    },
  );
  const predictionDir = async (orgId: string, id: string) => {
    const dir = await predictions.resultDir(orgId, id);
    if (!dir) throw new AppError(404, M.predictionNotFound);
    return dir;
  };
  r.get('/image/prediction/:id/heatmap/:index', { schema: { tags, summary: 'Heat-map of one predicted image', params: z.object({ id: z.string().max(64), index: z.string().regex(/^\d{1,9}$/) }), response: fileReplies('image/png', 'Heat-map PNG') } }, async (req, reply) =>
    sendFile(reply, path.join(await predictionDir(req.auth.orgId, req.params.id), 'heatmaps', `${req.params.index}.png`), 'image/png'),
  );
  r.get('/image/prediction/:id/csv', { schema: { tags, summary: 'Predictions as CSV: file, predicted class, score', params: idParams, response: fileReplies('text/csv', 'predictions.csv') } }, async (req, reply) =>
    sendFile(reply, path.join(await predictionDir(req.auth.orgId, req.params.id), 'predictions.csv'), 'text/csv', `prediction-${req.params.id}.csv`),
  );

}
