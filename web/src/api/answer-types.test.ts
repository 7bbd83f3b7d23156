import { describe, expect, it } from 'vitest';

/**
 * One contract (issue 15): the answers of these areas are typed only from the server's OpenAPI document
 * (schema.d.ts). This reads each area's api.ts and fails when a call's answer type is written by hand: an inline
 * object type, or an interface declared in the file, instead of a type taken from components / paths (directly,
 * through a local alias, or as an overlay such as Omit<Schemas['X'], 'k'> & {...}).
 * Request bodies and enums may still be declared in api.ts; only the type argument of an answer call is checked.
 */
const CHECKED_AREAS = ['optimization', 'optimal-design', 'images', 'timeseries', 'account'];
const sources = import.meta.glob('../features/*/api.ts', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;
const CALL = /\b(apiGet|apiPost|apiPut|apiDelete|uploadMultipart|accountCall)<(.+?)>\(/g;
const GENERATED = /\b(Schemas|components|paths)\[/;

/** The type arguments of every answer call in a source file. */
function answerTypes(src: string): string[] {
  return [...src.matchAll(CALL)].map((m) => m[2].trim());
}

/** Whether a type argument comes from the generated types, following the file's own aliases. */
export function fromContract(type: string, src: string, depth = 0): boolean {
  if (GENERATED.test(type)) return true;
  if (depth > 5) return false;
  const names = [...type.matchAll(/\b([A-Z][A-Za-z0-9]*)\b/g)].map((m) => m[1]).filter((n) => !['Omit', 'Pick', 'Partial', 'Record', 'Array', 'Promise'].includes(n));
  if (!names.length) return false;
  return names.every((n) => {
    if (new RegExp(`\\binterface ${n}\\b`).test(src)) return false;
    const alias = src.match(new RegExp(`\\btype ${n}(?:<[^>]*>)? = ([^;]+);`));
    if (alias) return fromContract(alias[1], src, depth + 1);
    // imported: the module it comes from is checked on its own (or is the shared api/types of generated names)
    return new RegExp(`import[^;]*\\b${n}\\b[^;]*from`).test(src);
  });
}

describe('answer types of the web app', () => {
  for (const area of CHECKED_AREAS) {
    it(`${area}: every answer type comes from the OpenAPI document`, () => {
      const src = sources[`../features/${area}/api.ts`];
      expect(src, area).toBeTruthy();
      const types = answerTypes(src);
      expect(types.length).toBeGreaterThan(0);
      const handWritten = types.filter((t) => !fromContract(t, src));
      expect(handWritten, `answer types written by hand in features/${area}/api.ts`).toEqual([]);
    });
  }

  it('tells a hand-written answer from a generated one', () => {
    const src = "import type { components } from '../../api/schema';\ntype Schemas = components['schemas'];\nexport type Project = Schemas['P'];\nexport interface Row { a: number }\ntype Page = { items: Row[] };\n";
    expect(fromContract('Project', src)).toBe(true);
    expect(fromContract("Omit<Schemas['P'], 'x'> & { x: number[] }", src)).toBe(true);
    expect(fromContract('Row', src)).toBe(false);
    expect(fromContract('Page', src)).toBe(false);
    expect(fromContract('{ id: string }', src)).toBe(false);
  });
});
