import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { closeApp, openApp, shooter } from '../support/app.ts';
import { ROOT, type RunningServer, SHARED_DATA } from '../support/server.ts';
import { signIn, signUp, uploadDataset } from '../support/session.ts';

const CSV = path.join(SHARED_DATA, 'uci_steel_plates_faults', 'steel_plates_faults.csv');

let server: RunningServer;
let browser: Browser;
let page: Page;

const shot = shooter('sa', () => page);

/** SciPy's Welch test on the same CSV: the figure the page must show. */
function scipyWelch(): { p: number; t: number; df: number } {
  const code = `import sys, json, pandas as pd
from scipy import stats
d = pd.read_csv(sys.argv[1])
a, b = d.Luminosity_Index[d.TypeOfSteel_A300 == 1], d.Luminosity_Index[d.TypeOfSteel_A300 == 0]
r = stats.ttest_ind(a, b, equal_var=False)
print(json.dumps({"p": float(r.pvalue), "t": float(r.statistic), "df": float(r.df)}))`;
  const r = spawnSync(path.join(ROOT, '.venv', 'bin', 'python'), ['-c', code, CSV], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout.trim());
}

const fourDigits = (p: number) => (p < 1e-4 ? '< 0.0001' : String(Number(p.toPrecision(4))));

before(async () => {
  ({ server, browser, page } = await openApp());
});

after(() => closeApp({ server, browser }));

test("statistical analysis: Welch's t-test with a category split, from the list to the result, in English and Japanese", async () => {
  // An account and a dataset through the API (the foundation spec covers those screens).
  const { email, token } = await signUp(server, { prefix: 'sa', first_name: 'Kenji', last_name: 'Sato', organisation_name: 'Kobe Steelworks' });
  await uploadDataset(server, token, 'Steel plates', 'steel_plates_faults.csv', fs.readFileSync(CSV), { training_type: 'statistical_analysis' });
  await signIn(page, server, email);

  // The list: pick the dataset there, then the register page.
  await page.getByRole('navigation', { name: 'Main menu' }).getByText('Statistics', { exact: true }).first().click();
  await page.waitForURL(/\/statistical-analysis$/);
  await page.waitForFunction(() => document.title === 'Statistical analysis | Mitate');
  await page.getByRole('combobox', { name: 'Dataset' }).click();
  await page.getByRole('option', { name: /Steel plates/ }).click();
  await shot('01-list');
  await page.getByRole('button', { name: 'New test' }).click();
  await page.waitForURL(/\/statistical-analysis\/register\/[^/]+$/);

  // A bad significance level is refused on the form.
  await page.getByText('Dataset: Steel plates').waitFor();
  await page.getByRole('combobox', { name: 'Value column' }).click();
  await page.getByRole('option', { name: /^Luminosity_Index/ }).click();
  await page.getByRole('combobox', { name: 'Category' }).click();
  await page.getByRole('option', { name: /^TypeOfSteel_A300/ }).click();
  await page.getByRole('combobox', { name: 'Group 1' }).click();
  await page.getByRole('option', { name: /^1 \(/ }).click();
  await page.getByRole('combobox', { name: 'Group 2' }).click();
  await page.getByRole('option', { name: /^0 \(/ }).click();
  await page.getByRole('combobox', { name: 'Variances' }).click();
  await page.getByRole('option', { name: 'Do not assume equal (Welch)' }).click();
  await page.getByRole('textbox', { name: 'Project name', exact: true }).fill('Luminosity by steel type');
  await page.getByRole('textbox', { name: 'Significance level', exact: true }).fill('1.5');
  await page.getByRole('button', { name: 'Run test' }).click();
  await page.getByText('The significance level must be greater than 0 and less than 1').waitFor();
  await page.getByRole('textbox', { name: 'Significance level', exact: true }).fill('0.05');
  await shot('02-register');
  await page.getByRole('button', { name: 'Run test' }).click();

  // The result: decision sentence and p-value as SciPy has them.
  await page.waitForURL(/\/statistical-analysis\/details\/[^/]+$/);
  const ref = scipyWelch();
  const sentence = page.getByTestId('decision-sentence');
  await sentence.waitFor({ timeout: 180_000 });
  const text = (await sentence.textContent()) ?? '';
  assert.match(text, /^At the 5% significance level, the mean of "Luminosity_Index" in group "1" \(.+\) (differs significantly from|does not differ significantly from) the mean of "Luminosity_Index" in group "0"/);
  assert.equal(text.includes('differs significantly'), ref.p < 0.05);
  assert.ok(text.includes(`p ${ref.p < 1e-4 ? '< 0.0001' : `= ${fourDigits(ref.p)}`}`), text);
  assert.equal(await page.getByTestId('p-value').textContent(), fourDigits(ref.p));
  await page.getByText("Welch's two-sample t-test").first().waitFor();
  await page.getByRole('img', { name: 'Box plot and values' }).waitFor();
  await page.getByRole('img', { name: /^Reference distribution: t distribution/ }).waitFor();
  await page.getByRole('table', { name: 'Descriptive statistics' }).getByRole('rowheader', { name: '1', exact: true }).waitFor();
  await shot('03-result');

  // Japanese: the same result says its decision in Japanese.
  await page.evaluate(() => localStorage.setItem('mitate.lang', 'ja-jp'));
  await page.reload();
  const ja = (await page.getByTestId('decision-sentence').textContent({ timeout: 180_000 })) ?? '';
  assert.match(ja, /^有意水準5%で、グループ「1」の「Luminosity_Index」の平均/);
  assert.match(ja, /帰無仮説(を棄却します|は棄却されません)。$/);
  await shot('04-result-ja');
  await page.evaluate(() => localStorage.setItem('mitate.lang', 'en-gb'));
  await page.reload();

  // The list shows it as done; then it is deleted from its page.
  await page.goto(`${server.url}/statistical-analysis?state=done`);
  await page.getByRole('cell', { name: 'Luminosity by steel type' }).waitFor();
  await page.getByRole('cell', { name: fourDigits(ref.p) }).waitFor();
  await page.getByRole('link', { name: 'Luminosity by steel type' }).click();
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await page.waitForURL(/\/statistical-analysis$/);
  await page.getByText('The project was deleted.').waitFor();
});
