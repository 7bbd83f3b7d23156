import fs from 'node:fs';
import type { z } from 'zod';

/**
 * A JSON column or file this server or the engine wrote, read back through its declaration: parsed, never cast.
 * Declarations of stored JSON are loose objects (z.looseObject) with optional fields for anything an older writer
 * may have left out, so every value written so far still reads; a value of another shape is a fault (500), named.
 *
 *   const Settings = z.looseObject({ version: z.string().optional() });
 *   const s = storedJson('platform settings', Settings, project.settings_json);
 */
export function storedJson<S extends z.ZodType>(what: string, schema: S, text: string): z.output<S> {
  const r = schema.safeParse(JSON.parse(text));
  if (!r.success) throw new Error(`stored ${what} is not its declared shape: ${r.error.message.slice(0, 2000)}`);
  return r.data;
}

/**
 * As storedJson, but the value is kept as it was written (keys the declaration does not name, no defaults filled):
 * for a file answered whole, such as a report, so that the tests' strict answer check still sees a key the engine
 * writes and the declaration misses. The check is the parse; this is the one place where the value takes the type.
 */
export function storedAsWritten<S extends z.ZodType>(what: string, schema: S, text: string): z.output<S> {
  const value: unknown = JSON.parse(text);
  const r = schema.safeParse(value);
  if (!r.success) throw new Error(`stored ${what} is not its declared shape: ${r.error.message.slice(0, 2000)}`);
  return value as z.output<S>;
}

/**
 * A reader of files written once and read often (an image dataset's manifest, read by every thumbnail request): each
 * is parsed once while its size and modification time stay the same, the last `max` kept. The caller's service holds
 * it, so two apps share nothing.
 */
export function storedFileMemo<S extends z.ZodType>(what: string, schema: S, max: number) {
  const held = new Map<string, { stamp: string; value: z.output<S> }>();
  return async (file: string): Promise<z.output<S>> => {
    const st = await fs.promises.stat(file);
    const stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
    const hit = held.get(file);
    if (hit?.stamp === stamp) return hit.value;
    const value = storedJson(what, schema, await fs.promises.readFile(file, 'utf8'));
    held.delete(file);
    if (held.size >= max) held.delete(held.keys().next().value!);
    held.set(file, { stamp, value });
    return value;
  };
}
