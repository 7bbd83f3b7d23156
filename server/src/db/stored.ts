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
