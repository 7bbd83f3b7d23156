import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { makeTestApp, registerAndLogin, SHARED_DATA, upload } from './helpers.js';

/** The statistics of a time-series dataset (with its datetime figures) are answered, not a 500 (found by e2e). */
it('answers the statistics of a dataset with a datetime column', async () => {
  const t = await makeTestApp('sqlite');
  try {
    const a = await registerAndLogin(t.app);
    const csv = fs.readFileSync(path.join(SHARED_DATA, 'skab_subset', 'valve1', '0.csv'));
    const up = await upload(t.app, a.auth, { name: 'valve.csv', content: csv }, { datetime_column: 'datetime', type: 'unsupervised', training_type: 'time_series_anomaly_detection_unsupervised' });
    const id = up.json().detail.response.id;
    const job = (await t.app.inject({ method: 'POST', url: `/api/statistics/result/${id}`, headers: a.auth })).json().detail.response.job_id;
    await t.app.ctx.jobs.waitFor(job, 600_000);
    const r = await t.app.inject({ method: 'POST', url: `/api/statistics/result/${id}`, headers: a.auth });
    expect(r.statusCode).toBe(200);
    expect(r.json().detail.response.state).toBe('succeeded');
  } finally {
    await t.close();
  }
}, 900_000);
