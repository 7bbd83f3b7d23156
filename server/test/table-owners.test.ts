import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Issue 32: every table has one owning repo (ARCHITECTURE.md "Server layering"); another area reads and writes it
 * through the owner's service. A table belongs to the repo.ts beside the db.ts that declares its Kysely type; the
 * foundation tables of db/schema.ts are listed here.
 */
const src = path.resolve(import.meta.dirname, '..', 'src');
const FOUNDATION: Record<string, string> = {
  organisations: 'features/account/repo.ts',
  users: 'features/account/repo.ts',
  refresh_tokens: 'features/account/repo.ts',
  datasets: 'features/datasets/repo.ts',
  jobs: 'jobs/repo.ts',
};

function files(dir: string, name: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) files(p, name, out);
    else if (e.name === name) out.push(p);
  }
  return out;
}

const rel = (p: string) => path.relative(src, p).split(path.sep).join('/');
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

/** table → its owning repo, from the `interface Database { … }` each db.ts adds to. */
function owners(): Map<string, string> {
  const out = new Map(Object.entries(FOUNDATION));
  for (const db of files(src, 'db.ts')) {
    const block = /interface Database \{([^}]*)\}/.exec(fs.readFileSync(db, 'utf8'))?.[1];
    for (const m of block?.matchAll(/^\s*(\w+):/gm) ?? []) {
      expect(out.has(m[1]), `${m[1]} declared twice`).toBe(false);
      out.set(m[1], rel(path.join(path.dirname(db), 'repo.ts')));
    }
  }
  return out;
}

/** The tables a repo's statements name: Kysely's quoted table names ('t' or 't as x') and raw SQL's FROM/JOIN/INTO/UPDATE. */
function tablesUsed(text: string, tables: Set<string>): Set<string> {
  const code = withoutComments(text);
  const used = new Set<string>();
  for (const m of code.matchAll(/'(\w+)(?: as \w+)?'/g)) if (tables.has(m[1])) used.add(m[1]);
  for (const m of code.matchAll(/\b(?:from|join|into|update)\s+"?(\w+)"?/gi)) if (tables.has(m[1])) used.add(m[1]);
  return used;
}

describe('table owners', () => {
  it('finds a table in Kysely calls and in raw SQL, not in comments', () => {
    const tables = new Set(['users', 'jobs', 'organisations']);
    const text = "// the users table\nq.selectFrom('jobs as j').innerJoin('organisations as o', 'o.id', 'j.organisation_id');\nsql`SELECT 1 FROM users`;";
    expect([...tablesUsed(text, tables)].sort()).toEqual(['jobs', 'organisations', 'users']);
    expect([...tablesUsed('/* users */ const a = 1;', tables)]).toEqual([]);
  });

  it('every table is named only by its owning repo.ts', () => {
    const own = owners();
    const tables = new Set(own.keys());
    const strays: string[] = [];
    for (const repo of files(src, 'repo.ts')) {
      for (const t of tablesUsed(fs.readFileSync(repo, 'utf8'), tables)) if (own.get(t) !== rel(repo)) strays.push(`${rel(repo)} uses ${t} (owner: ${own.get(t)})`);
    }
    expect(strays).toEqual([]);
    // Each owner is a repo that exists (a table declared where no repo.ts sits would be owned by nobody).
    for (const [t, repo] of own) expect(fs.existsSync(path.join(src, repo)), `${t}: ${repo}`).toBe(true);
  });
});
