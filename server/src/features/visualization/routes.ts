import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ok } from '../../http/errors.js';
import { MAX_SCATTER_POINTS, Phases } from './figures.js';
import { replies } from '../../http/responses.js';
import { acceptedEncoding, answerKey, answerOf, holdsAnswer } from './answer-cache.js';
import type { VisualizationService } from './service.js';
import { BoxplotView, CorrelationView, HistogramView, MatrixView, ScatterView, TimeseriesView } from './responses.js';

const params = z.object({ dataset_id: z.string().max(64) });
const name = z.string().min(1).max(512);
const tags = ['visualization'];

/**
 * Exploration queries, answered by DuckDB on the dataset's Parquet file (no job): histograms, box plots,
 * scatter (sampled or binned), scatter matrix, correlation, time-series downsampling. Read-only, so any
 * member of the organisation may call them.
 */
export default async function visualizationRoutes(app: FastifyInstance) {
  const answer = answerer(app.services.visualization);
  timeSerialization(app);
  figureRoutes(app, answer);
  timeseriesRoutes(app);
}

type Answer = ReturnType<typeof answerer>;

function answerer(vis: VisualizationService) {
  /**
   * A kept answer's bytes when the same question about the same version of the dataset was answered before;
   * else the answer computed, checked and written by the route's serializer, then kept (answer-cache.ts). The
   * caller's access to the dataset is checked first, every time. Each answer carries its entity tag (ETag); a
   * caller that sends the tag of the copy it holds (If-None-Match) gets 304 and no body when that is still the
   * answer. Server-Timing: open, cache (a hit) or the handler's phases and serialize.
   */
  async function answer(req: FastifyRequest<{ Params: { dataset_id: string } }>, reply: FastifyReply, route: string, question: unknown, compute: (phases: Phases) => Promise<unknown>) {
    const phases = new Phases();
    const { id, version } = await vis.version(req.auth, req.params.dataset_id);
    const key = answerKey(id, version, route, question);
    let kept = vis.answers.get(key);
    phases.lap(kept ? 'cache' : 'access');
    if (!kept) {
      const view = await compute(phases);
      kept = answerOf(key, Buffer.from(reply.serialize(ok(view)) as string));
      vis.answers.set(key, kept);
      phases.lap('serialize');
    }
    // private: the answer is the caller's organisation's; no-cache: asked again each time (access is checked).
    reply.header('etag', kept.etag).header('cache-control', 'private, no-cache').header('server-timing', phases.header());
    if (holdsAnswer(req.headers['if-none-match'], kept.etag)) return reply.code(304).send();
    reply.type('application/json; charset=utf-8').header('vary', 'accept-encoding');
    const encoding = acceptedEncoding(req.headers['accept-encoding'], kept.bytes.length);
    if (!encoding) return reply.send(kept.bytes);
    // compressed once and kept with the answer (the plugin leaves a body that already has a coding alone)
    const body = await vis.answers.encoded(key, kept, encoding);
    phases.lap('encode');
    return reply.header('content-encoding', encoding).header('server-timing', phases.header()).send(body);
  }
  return answer;
}

function timeSerialization(app: FastifyInstance) {
  // Server-Timing: the handler's phases (where a route reports them) and the time to check and write the answer.
  const serializing = new WeakMap<object, number>();
  app.addHook('preSerialization', async (req, _reply, payload) => {
    serializing.set(req, performance.now());
    return payload;
  });
  app.addHook('onSend', async (req, reply, payload) => {
    const t0 = serializing.get(req);
    if (t0 !== undefined) {
      const before = reply.getHeader('server-timing');
      reply.header('server-timing', `${before ? `${String(before)}, ` : ''}serialize;dur=${(performance.now() - t0).toFixed(1)}`);
    }
    return payload;
  });
}

/** The figures: each answer kept and tagged (answerer). */
function figureRoutes(app: FastifyInstance, answer: Answer) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const vis = app.services.visualization;

  r.post(
    '/visualization/histogram/:dataset_id',
    {
      schema: {
        tags,
        summary: 'Histogram (numeric, datetime) or bar counts (categorical) of columns',
        params,
        body: z.object({ columns: z.array(name).min(1).max(50), bins: z.number().int().min(1).max(500).default(30), top: z.number().int().min(1).max(100).default(20) }),
        response: replies({ 200: HistogramView }),
        tagged: true,
      },
    },
    (req, reply) => answer(req, reply, 'histogram', req.body, () => vis.histogram(req.auth, req.params.dataset_id, req.body.columns, req.body.bins, req.body.top)),
  );

  r.post(
    '/visualization/boxplot/:dataset_id',
    { schema: { tags, summary: 'Box plots (quartiles, 1.5 IQR whiskers, outliers) of numeric columns', params, body: z.object({ columns: z.array(name).min(1).max(50) }), response: replies({ 200: BoxplotView }), tagged: true } },
    (req, reply) => answer(req, reply, 'boxplot', req.body, () => vis.boxplot(req.auth, req.params.dataset_id, req.body.columns)),
  );

  r.post(
    '/visualization/scatter/:dataset_id',
    {
      // Not compressed: a packed answer is dense numbers (brotli took ~80 ms of CPU on one of 1 MB for a third off).
      compress: false,
      schema: {
        tags,
        summary: `Scatter of two columns, coloured by a third; at most ${MAX_SCATTER_POINTS} points (sample: true when sampled) or a binned grid`,
        params,
        body: z.object({
          x: name,
          y: name,
          color: name.nullish(),
          max_points: z.number().int().min(100).max(MAX_SCATTER_POINTS).default(MAX_SCATTER_POINTS),
          mode: z.enum(['sample', 'bin']).default('sample'),
          bins: z.number().int().min(10).max(200).default(100),
          format: z
            .enum(['arrays', 'packed'])
            .default('arrays')
            .describe('arrays: points / cells as JSON arrays; packed: packed_points / packed_cells, the same numbers as base64 columns (exact; a fraction of the time to write and read)'),
        }),
        response: replies({ 200: ScatterView }),
        tagged: true,
      },
    },
    (req, reply) => answer(req, reply, 'scatter', req.body, (phases) => vis.scatter(req.auth, req.params.dataset_id, req.body, phases)),
  );

  r.post(
    '/visualization/matrix/:dataset_id',
    {
      schema: {
        tags,
        summary: 'Scatter-plot matrix data: a sample of complete rows of 2 to 8 numeric columns',
        params,
        body: z.object({ columns: z.array(name).min(2).max(8), max_points: z.number().int().min(100).max(20_000).default(3000) }),
        response: replies({ 200: MatrixView }),
        tagged: true,
      },
    },
    (req, reply) => answer(req, reply, 'matrix', req.body, () => vis.matrix(req.auth, req.params.dataset_id, req.body.columns, req.body.max_points)),
  );

  r.post(
    '/visualization/correlation/:dataset_id',
    {
      schema: {
        tags,
        summary: 'Correlation matrix (Pearson or Spearman) of numeric columns (default: all numeric, up to 50)',
        params,
        body: z.object({ columns: z.array(name).max(50).optional(), method: z.enum(['pearson', 'spearman']).default('pearson') }),
        response: replies({ 200: CorrelationView }),
        tagged: true,
      },
    },
    (req, reply) => answer(req, reply, 'correlation', req.body, () => vis.correlation(req.auth, req.params.dataset_id, req.body.columns, req.body.method)),
  );
}

/** Time-series windows and overviews (answered fresh each time). */
function timeseriesRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const vis = app.services.visualization;

  const tsBody = z.object({
    columns: z.array(name).max(12).optional(),
    start: z.number().nullish(),
    end: z.number().nullish(),
    buckets: z.number().int().min(10).max(5000).default(1000),
    method: z.enum(['minmax', 'lttb']).default('minmax'),
  });

  r.post(
    '/statistics/timeseries/:dataset_id',
    {
      schema: {
        tags,
        summary: 'Time series of chosen columns for a window [start, end] (epoch ms), downsampled per bucket (min/max or LTTB)',
        params,
        body: tsBody,
        response: replies({ 200: TimeseriesView }),
      },
    },
    async (req) => ok(await vis.timeseries(req.auth, req.params.dataset_id, req.body)),
  );

  r.get(
    '/statistics/timeseries/result/:id',
    {
      schema: {
        tags,
        summary: 'Overview of a time-series dataset (id = dataset id): the whole range of its first numeric columns, downsampled',
        params: z.object({ id: z.string().max(64) }),
        querystring: z.object({ columns: z.string().max(4000).optional(), buckets: z.coerce.number().int().min(10).max(5000).default(1000) }),
        response: replies({ 200: TimeseriesView }),
      },
    },
    async (req) =>
      ok(
        await vis.timeseries(req.auth, req.params.id, {
          columns: req.query.columns ? req.query.columns.split(',').filter(Boolean) : undefined,
          buckets: req.query.buckets,
          method: 'minmax',
        }),
      ),
  );
}
