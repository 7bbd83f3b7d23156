import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobService } from '../src/jobs/service.js';
import { buildServices } from '../src/services.js';
import { makeTestApp, type TestApp } from './helpers.js';

/** The areas' job handlers come with the services, not with the HTTP routes (issue 32): a process that builds the
 * services only (a worker-only server) still keeps image, training, time-series ... runs in step. */
describe('job handlers installed where the services are built', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp('sqlite', { startJobs: false });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('buildServices alone installs every finished and event handler', async () => {
    const jobs = new JobService({ db: t.app.ctx.db, config: t.app.ctx.config, log: () => undefined });
    const services = buildServices({ ...t.app.ctx, jobs });
    const counts = (j: JobService) => {
      const { finishedHandlers, eventHandlers } = j as unknown as { finishedHandlers: Map<string, unknown[]>; eventHandlers: Map<string, unknown[]> };
      const each = (m: Map<string, unknown[]>) => Object.fromEntries([...m].map(([k, v]) => [k, v.length]));
      return { finished: each(finishedHandlers), events: each(eventHandlers) };
    };
    try {
      const expected = {
        finished: { statistics: 1, statistical_analysis: 1, train: 1, tsad_train: 1, image_train: 1, optimal_design: 1, platform_drift: 1 },
        events: { train: 1, tsad_train: 1, image_train: 1 },
      };
      expect(counts(jobs)).toEqual(expected);
      expect(counts(t.app.ctx.jobs)).toEqual(expected); // the route plugins add none: each handler runs once
    } finally {
      await services.drift.close();
    }
  });
});
