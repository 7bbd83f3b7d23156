import type { AuthContext } from '../../auth/guard.js';
import { AppError } from '../../http/errors.js';
import { ident } from '../../duck/index.js';
import { datasetStats } from '../datasets/stored.js';
import { isNumericType, num, SchemaColumn, SPEARMAN_MAX_ROWS } from './figures.js';
import { M } from './messages.js';
import { column, rows, type Explore } from './explore.js';

// Correlation matrices (Pearson, Spearman) of a dataset's numeric columns.

/** Pearson (pairwise complete rows, as pandas) or Spearman (average ranks; on a sample above SPEARMAN_MAX_ROWS). */
export async function correlation(x: Explore, auth: AuthContext, id: string, names: string[] | undefined, method: 'pearson' | 'spearman') {
  const { open, withConn, cached } = x;
  const { row, schema, src, sketch } = await open(auth, id);
  const cols = names?.length ? names.map((n) => column(schema, n, 'columns', true)) : schema.filter((s) => isNumericType(s.type)).slice(0, 50);
  if (cols.length < 2) throw new AppError(422, M.tooFewColumns, { min: 2 }, 'columns');
  const spearman = sketch?.manifest.spearman;
  if (method === 'spearman' && spearman && cols.every((col) => spearman.names.includes(col.name))) {
    // Spearman on all rows of complete columns, computed by the statistics job from the sorted values.
    const at = cols.map((col) => spearman.names.indexOf(col.name));
    const matrix = at.map((i) => at.map((j) => (i === j ? 1 : spearman.matrix[i][j])));
    const total = Number(row.row_count);
    return { method, columns: cols.map((x) => x.name), matrix, rows: total, sample: false, sample_rows: total };
  }
  return withConn(async (c) => {
    let from = src;
    let sample = false;
    const total = Number(row.row_count);
    if (method === 'spearman') sample = total > SPEARMAN_MAX_ROWS;
    if (method === 'spearman') {
      const base = `SELECT ${cols.map((c) => `${ident(c.name)}::DOUBLE AS ${ident(c.name)}`).join(', ')} FROM ${src}`;
      const picked = sample ? `SELECT * FROM (${base}) USING SAMPLE reservoir(${SPEARMAN_MAX_ROWS} ROWS) REPEATABLE (42)` : base;
      const ranks = cols
        .map((col) => {
          const q = ident(col.name);
          return `CASE WHEN ${q} IS NULL THEN NULL ELSE rank() OVER (ORDER BY ${q} NULLS LAST) + (count(*) OVER (PARTITION BY ${q}) - 1) / 2.0 END AS ${q}`;
        })
        .join(', ');
      from = `(SELECT ${ranks} FROM (${picked}))`;
    }
    const matrix = cols.map((_, i) => cols.map((__, j) => (i === j ? 1 : null as number | null)));
    const stats = new Map(datasetStats(row).map((s) => [s.name, s]));
    const complete = cols.every((col) => stats.get(col.name)?.missing === 0 && typeof stats.get(col.name)?.mean === 'number');
    if (method === 'spearman' && !complete) {
      // With missing values pandas ranks each pair within its complete rows; so do we, one pair per branch.
      const base = `SELECT ${cols.map((c) => `${ident(c.name)}::DOUBLE AS ${ident(c.name)}`).join(', ')} FROM ${src}`;
      const picked = sample ? `SELECT * FROM (${base}) USING SAMPLE reservoir(${SPEARMAN_MAX_ROWS} ROWS) REPEATABLE (42)` : base;
      const rk = (q: string) => `rank() OVER (ORDER BY ${q}) + (count(*) OVER (PARTITION BY ${q}) - 1) / 2.0`;
      const branches: string[] = [];
      const pairs: [number, number][] = [];
      for (let i = 0; i < cols.length; i++) {
        for (let j = i + 1; j < cols.length; j++) {
          const a = ident(cols[i].name);
          const b = ident(cols[j].name);
          branches.push(`SELECT ${pairs.length} AS k, corr(ra, rb) FROM (SELECT ${rk(a)} AS ra, ${rk(b)} AS rb FROM __p WHERE ${a} IS NOT NULL AND ${b} IS NOT NULL)`);
          pairs.push([i, j]);
        }
      }
      const r = await rows(c, `WITH __p AS MATERIALIZED (${picked}) ${branches.join(' UNION ALL ')}`);
      for (const [k, v] of r) {
        const [i, j] = pairs[Number(k)];
        matrix[i][j] = matrix[j][i] = num(v);
      }
    } else if (method === 'pearson' && complete) {
      // No missing value: one pass of sums of centred values and their products over every complete numeric
      // column (3× faster than corr() per pair); kept, so any later choice of columns is answered at once.
      const usable = (s: SchemaColumn) => isNumericType(s.type) && stats.get(s.name)?.missing === 0 && typeof stats.get(s.name)?.mean === 'number';
      const all = schema.filter(usable).slice(0, 60);
      const basis = cols.every((col) => all.some((a) => a.name === col.name)) ? all : cols;
      const pearson = sketch?.manifest.pearson;
      const fromSketch = pearson && cols.every((col) => pearson.names.includes(col.name)) ? pearson : null;
      const mom = fromSketch ?? await cached(`${row.id}:moments:${JSON.stringify(basis.map((b) => b.name))}`, async () => {
        const d = basis.map((col) => `(${ident(col.name)}::DOUBLE - ${stats.get(col.name)!.mean}::DOUBLE)`);
        const prods: [number, number][] = [];
        for (let i = 0; i < basis.length; i++) for (let j = i; j < basis.length; j++) prods.push([i, j]);
        const v = (await rows(c, `SELECT count(*)::DOUBLE, ${d.map((x) => `sum(${x})`).join(', ')}, ${prods.map(([i, j]) => `sum(${d[i]} * ${d[j]})`).join(', ')} FROM ${src}`))[0].map((x) => Number(x));
        const n = v[0];
        const sx = v.slice(1, 1 + basis.length);
        const cov: number[][] = basis.map(() => basis.map(() => 0));
        prods.forEach(([i, j], k) => {
          cov[i][j] = cov[j][i] = v[1 + basis.length + k] - (sx[i] * sx[j]) / n;
        });
        return { names: basis.map((b) => b.name), cov };
      });
      const at = cols.map((col) => mom.names.indexOf(col.name));
      for (let i = 0; i < cols.length; i++) {
        for (let j = i + 1; j < cols.length; j++) {
          const r = mom.cov[at[i]][at[j]] / Math.sqrt(mom.cov[at[i]][at[i]] * mom.cov[at[j]][at[j]]);
          matrix[i][j] = matrix[j][i] = Number.isFinite(r) ? Math.max(-1, Math.min(1, r)) : null;
        }
      }
    } else {
      const parts: string[] = [];
      const pairs: [number, number][] = [];
      for (let i = 0; i < cols.length; i++) {
        for (let j = i + 1; j < cols.length; j++) {
          pairs.push([i, j]);
          parts.push(`corr(${ident(cols[i].name)}::DOUBLE, ${ident(cols[j].name)}::DOUBLE)`);
        }
      }
      const vals = (await rows(c, `SELECT ${parts.join(', ')} FROM ${from}`))[0].map(num);
      pairs.forEach(([i, j], k) => {
        matrix[i][j] = vals[k];
        matrix[j][i] = vals[k];
      });
    }
    return { method, columns: cols.map((c) => c.name), matrix, rows: total, sample, sample_rows: sample ? SPEARMAN_MAX_ROWS : total };
  });
}
