import { describe, expect, it } from 'vitest';

/**
 * One contract (issues 15, 32): answers are typed only from the server's OpenAPI document (schema.d.ts), through the
 * typed client (typed.ts: `answer(http.GET(...))`, `accountAnswer`, `uploadTo`, `answerQuery`). This reads every
 * source file of the app and fails when a call's answer type is chosen by hand: a type argument given to the untyped
 * helpers (apiGet<T>, apiPost<T>, apiPut<T>, apiDelete<T>, accountCall<T>).
 */
const sources = import.meta.glob(['../**/*.{ts,tsx}', '!../**/*.test.{ts,tsx}', '!../api/*.ts'], { query: '?raw', import: 'default', eager: true }) as Record<string, string>;
const CALL = /\b(apiGet|apiPost|apiPut|apiDelete|accountCall)<([^>(]+)>\(/g;

/** Each hand-typed call of a source: `file: helper<T>`. */
export function handTyped(file: string, src: string): string[] {
  return [...src.matchAll(CALL)].map((m) => `${file}: ${m[1]}<${m[2]}>`);
}

describe('answer types of the web app', () => {
  it('reads the app', () => {
    expect(Object.keys(sources).length).toBeGreaterThan(100);
    expect(Object.keys(sources)).toContain('../features/images/api.ts');
    expect(Object.keys(sources)).toContain('../features/platform/api.ts');
  });

  it('no answer type is chosen by hand', () => {
    const found = Object.entries(sources).flatMap(([file, src]) => handTyped(file, src));
    expect(found).toEqual([]);
  });

  it('tells a hand-typed call from a typed one', () => {
    expect(handTyped('a.ts', "apiGet<Project>(`/api/x/${id}`)")).toEqual(['a.ts: apiGet<Project>']);
    expect(handTyped('a.ts', "accountCall<{ id: string }>('/account/api/members')")).toEqual(['a.ts: accountCall<{ id: string }>']);
    expect(handTyped('a.ts', "answer(http.GET('/api/x/{id}', { params: { path: { id } } }))")).toEqual([]);
    expect(handTyped('a.ts', "accountCall('/account/api/members/photo', { method: 'DELETE' })")).toEqual([]);
  });
});
