import assert from 'node:assert/strict';
import type { Page, Response } from 'playwright-core';
import type { RunningServer } from './server.ts';
import { apiJson } from './session.ts';

/** Waits (up to 20 minutes) until `check` answers something truthy; `what` names it in the failure. */
export async function until<T>(what: string, check: () => Promise<T | false | null | undefined>): Promise<T> {
  for (let i = 0; ; i++) {
    const v = await check();
    if (v) return v;
    assert.ok(i < 1200, `${what}: not reached in 20 minutes`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** A project's first finished model, polled at `url` (a project view with `models`); a failed model fails the test. */
export async function firstDoneModel(server: RunningServer, token: string, url: string): Promise<string> {
  return until(`trained model at ${url}`, async () => {
    const v = await apiJson(server, 'GET', url, token);
    const models = (v.models ?? []) as { state: string; model_key: string; error?: string }[];
    assert.ok(!models.some((m) => m.state === 'failed'), `training failed at ${url}: ${JSON.stringify(models)}`);
    return models.find((m) => m.state === 'done')?.model_key;
  });
}

/** Waits until the prediction `id` is done (any type). */
export async function predictionDone(server: RunningServer, token: string, id: string) {
  await until(`prediction ${id}`, async () => {
    const v = await apiJson(server, 'GET', `/api/prediction/${id}`, token);
    assert.notEqual(v.state, 'failed', JSON.stringify(v));
    return v.state === 'done';
  });
}

/** What a page said wrong: failed API calls and uncaught errors since `watch` began, cleared by each `take`. */
export function watch(page: Page, expectedFailures: RegExp[] = []) {
  const problems: string[] = [];
  const onResponse = (r: Response) => {
    const url = r.url();
    if (r.status() >= 400 && /\/(api|account\/api)\//.test(url) && !expectedFailures.some((e) => e.test(`${r.request().method()} ${url}`)))
      problems.push(`${r.status()} ${r.request().method()} ${url}`);
  };
  page.on('response', onResponse);
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return { take: () => problems.splice(0) };
}

const FILE_LIKE = /\.(csv|tsv|html?|json|png|jpe?g|zip|pdf|txt|md|parquet|py|pt|joblib|com|ts|xlsx?)$/i;

/** Text that looks like an i18n key left on screen (`details.running`, `metrics.far`), not a file or host name. */
export function rawKeys(text: string): string[] {
  return [...text.matchAll(/(?<![\w.@/-])[a-z][A-Za-z0-9]+(?:\.[a-z][A-Za-z0-9_]+)+(?![\w@/-])/g)].map((m) => m[0]).filter((k) => !FILE_LIKE.test(k));
}

/** English words of the app's own UI that a Japanese page must not show (data such as column names may be English). */
const ENGLISH_UI = new Set(
  (
    'Next Back Cancel Save Delete Train Predict Register Download Name Created Updated Status Done Running Failed Details ' +
    'Report Settings Model Models Dataset Datasets Project Projects Search Rows Columns Open Close Edit Rename Results Summary ' +
    'Threshold Overview Actions Preview Create Submit Alarms Score Metrics Features Target Algorithm Parameters Value Mean ' +
    'Median Missing Loading Error Decimal Integer Text Yes Help Language Profile Members Invoices Wallet Optimization Optimise ' +
    'Optimize Statistics Prediction Training Visualization Preprocessing Experiments default other float integer double ' +
    'int64 rows columns alarm alarms scored of Unknown Never None'
  ).split(' '),
);

/** The app's own enumerations as the API spells them: a page names them in words (a model key such as 1_pca_mspc,
 * which people name their models by, is not matched: no word boundary after its digit). */
const RAW_IDS =
  /\b(time_series_anomaly_detection_(?:un)?supervised|soft_sensor|dimensional_compression|discriminant_analysis|training_data|inference_data|simplex_lattice|simplex_centroid|d_optimal|i_optimal|expected_improvement\w*|coordinate_exchange|paired_t|two_sample_t|one_sample_t|mann_whitney|scheffe_quadratic|components_rule|parallel_analysis|far_cross_checked|validation_f1)\b/g;

/** Form labels, buttons, tabs and chips whose text is cut with an ellipsis, and data-grid cells that cut a date and
 * time (grids cut other long values on purpose). */
async function truncatedLabels(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    // no named function in here: tsx would wrap it in a helper the page does not have
    const out: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>('label, legend > span, button, [role=tab], .MuiChip-label, .MuiInputLabel-root, th')) {
      if (el.closest('.MuiDataGrid-root, .MuiBreadcrumbs-root') || !el.offsetParent) continue;
      if (getComputedStyle(el).textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1) out.push(el.innerText.trim());
    }
    for (const el of document.querySelectorAll<HTMLElement>('.MuiDataGrid-cell')) if (/^\d{4}-\d\d-\d\d[ T]\d/.test(el.textContent ?? '') && el.scrollWidth > el.clientWidth + 1) out.push(el.textContent!);
    return [...new Set(out)];
  });
}

/** English UI words in the visible text of a Japanese page (tokens of letters, digits and underscores). */
export function englishWords(text: string): string[] {
  return [...new Set(text.split(/[^A-Za-z0-9_]+/).filter((w) => ENGLISH_UI.has(w)))];
}

/** What is wrong with a settled page of the walk: no error page, no 'undefined', no raw key, in Japanese no English UI
 * word; `problems` (the failed calls and page errors seen while it loaded) are counted in. */
export async function checkPage(page: Page, lang: 'en' | 'ja', problems: string[], allowedWords: string[] = []): Promise<string[]> {
  const found = [...problems];
  if ((await page.getByRole('alert').filter({ hasText: /UNEXPECTED_ERROR|CHUNK_LOAD/ }).count()) > 0) found.push('error page');
  const text = await page.locator('body').innerText();
  const odd = text.match(/.{0,60}(\bundefined\b|\[object Object\]|\bNaN\b).{0,60}/);
  if (odd) found.push(`'undefined', 'NaN' or an object on screen: ${odd[0]}`);
  const keys = rawKeys(text);
  if (keys.length) found.push(`raw i18n keys: ${keys.join(', ')}`);
  const words = lang === 'ja' ? englishWords(text).filter((w) => !allowedWords.includes(w)) : [];
  if (words.length) found.push(`English UI words: ${words.join(', ')}`);
  const twice = text.match(/(?:^|· )([^·\n]+) · \1(?= ·|\n|$)/m);
  if (twice) found.push(`a subtitle says a word twice: ${twice[0]}`);
  const ids = [...new Set([...text.matchAll(RAW_IDS)].map((m) => m[0]))];
  if (ids.length) found.push(`raw identifiers: ${ids.join(', ')}`);
  const cut = await truncatedLabels(page);
  if (cut.length) found.push(`labels cut short: ${cut.join(' | ')}`);
  return found;
}

/** How many animation frames in a row a page must draw with nothing loading before it counts as settled. */
const QUIET_FRAMES = 12;

/** Waits until the page is settled: its main heading is shown and for QUIET_FRAMES frames in a row no request has
 * been in flight (the shell's progress bar) and no part of it has been loading (busy, skeleton). The page itself
 * counts the frames (no polling from here), so a page that settles at once costs a fifth of a second. */
export async function settle(page: Page) {
  await page.locator('main h1, [role=main] h1, h1').first().waitFor();
  await page.evaluate(() => ((window as unknown as { walkQuiet: number }).walkQuiet = 0));
  await page
    .waitForFunction(
      (frames) => {
        const w = window as unknown as { walkQuiet: number };
        const busy =
          !!document.querySelector('[data-testid=global-progress]') ||
          [...document.querySelectorAll('[aria-busy=true], .MuiSkeleton-root')].some((e) => e.checkVisibility({ visibilityProperty: true }));
        w.walkQuiet = busy ? 0 : w.walkQuiet + 1;
        return w.walkQuiet >= frames;
      },
      QUIET_FRAMES,
      { polling: 'raf', timeout: 120_000 },
    )
    .catch((e: Error) => assert.fail(`${page.url()}: still loading after 120 s (${e.message.split('\n')[0]})`));
}

/** A page of the app reached as a person inside it would (the router's own navigation, no new page load): first the
 * not-found page (`via`, a component no walked page shares, so the next page's heading is a new element), then
 * `url`. Resolves once the heading of the page at `url` is shown. */
export async function goInApp(page: Page, url: string, via = '/walk/in-app') {
  const go = (u: string) =>
    page.evaluate((to) => {
      history.pushState(null, '', to);
      dispatchEvent(new PopStateEvent('popstate', { state: null }));
    }, u);
  await go(via);
  // the not-found page's big '404' (no walked page shows it): from then on every heading on the page is its own
  await page.getByText('404', { exact: true }).waitFor();
  await page.evaluate(() => document.querySelectorAll('h1').forEach((h) => h.setAttribute('data-walk-left', '')));
  await go(url);
  await page.locator('h1:not([data-walk-left])').first().waitFor();
}
