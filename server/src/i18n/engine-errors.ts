import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { storedJson } from '../db/stored.js';
import { engineDir } from '../jobs/engine.js';
import type { Lang, LocalText } from './messages.js';

/**
 * Engine errors in the caller's language. The engine fails a job (or a model) with JSON {code, params, message};
 * its catalogue engine/mitate_engine/messages.json holds the en/ja texts of every code, so the engine's English and
 * the server's rendering come from one file. A parameter may itself be such an error (a preprocessing step's reason).
 * This module is the one decoder and renderer of that JSON; an area that words some parameters its own way passes
 * its catalogue and formatters (Wording) rather than decoding the error again.
 */
const catalogue = storedJson(
  'engine message catalogue',
  z.record(z.string(), z.object({ en: z.string(), ja: z.string() })),
  fs.readFileSync(path.join(engineDir, 'mitate_engine', 'messages.json'), 'utf8'),
);

/** The engine's coded error as it travels (engine task.py EngineError.as_dict / encoded). */
const EngineErrorJson = z.object({
  code: z.string(),
  params: z.record(z.string(), z.json()).nullish(),
  message: z.string().nullish(),
});
/** An engine error as the server handles it: decoded from a job, or built by an area from a code and parameters. */
export interface EngineError {
  code: string;
  params?: Record<string, unknown> | null;
  message?: string | null;
}

const asEncoded = (v: unknown): EngineError | null => {
  const r = EngineErrorJson.safeParse(v);
  return r.success ? r.data : null;
};

/** A job's or model's error text as the engine's coded error, or null when it is another text (a fault's message). */
export function decodeEngineError(text: string | null | undefined): EngineError | null {
  // the engine writes the code first (json.dumps of as_dict): other texts are not parsed at all
  if (!text?.startsWith('{"code"')) return null;
  try {
    return asEncoded(JSON.parse(text));
  } catch {
    return null;
  }
}

/** How an area words its coded errors beyond its catalogue; every field optional (default: as the engine says them). */
export interface Wording {
  /** The parameters as the area names them (e.g. a file code by its name), before they are put into the text. */
  params?: (params: Record<string, unknown>, lang: Lang) => Record<string, unknown>;
  /** A parameter's text; undefined keeps "{name}" as written. Default: a nested error rendered, integers grouped
   * (1,234, as the engine's English), a missing or null value left as "{name}". */
  param?: (value: unknown, lang: Lang) => string | undefined;
}

interface Words extends Wording {
  extra?: Record<string, LocalText>;
}

function defaultParam(v: unknown, lang: Lang, w: Words): string | undefined {
  if (v === null || v === undefined) return undefined;
  const nested = typeof v === 'object' ? asEncoded(v) : null;
  if (nested) return render(nested, lang, w);
  if (typeof v === 'number' && Number.isInteger(v)) return v.toLocaleString('en-US');
  return String(v);
}

const entry = (table: Record<string, LocalText> | undefined, code: string) => (table && Object.hasOwn(table, code) ? table[code] : undefined);

function render(e: EngineError, lang: Lang, w: Words = {}): string {
  const known = entry(w.extra, e.code) ?? entry(catalogue, e.code);
  if (!known) return e.message ?? e.code;
  const params = w.params ? w.params(e.params ?? {}, lang) : (e.params ?? {});
  return known[lang].replace(/\{(\w+)\}/g, (whole, k: string) => (w.param ? w.param(params[k], lang) : defaultParam(params[k], lang, w)) ?? whole);
}

/** A job's or model's error text for the reader: an encoded engine error in `lang`, anything else as it is.
 * `extra`: an area's own catalogue, looked up before the engine's; `wording`: how the area says the parameters. */
export function engineErrorText(error: string | null | undefined, lang: Lang, extra?: Record<string, LocalText>, wording: Wording = {}): string | null {
  if (error === null || error === undefined) return null;
  const e = decodeEngineError(error);
  return e ? render(e, lang, { ...wording, extra }) : error;
}

/** The engine catalogue's words for `codes`: an area whose errors share codes with the engine's takes them from the
 * one table (a code the catalogue lacks is a start-up error, not a silent fallback). */
export function engineTexts<K extends string>(codes: readonly K[]): Record<K, LocalText> {
  const out = {} as Record<K, LocalText>;
  for (const code of codes) {
    if (!Object.hasOwn(catalogue, code)) throw new Error(`engine/mitate_engine/messages.json has no entry for ${code}`);
    out[code] = catalogue[code];
  }
  return out;
}

/** The catalogue's codes that start with `prefix` (an area's namespace, e.g. 'optimization.'). */
export const engineCodes = (prefix: string): string[] => Object.keys(catalogue).filter((c) => c.startsWith(prefix));

/** Whether the engine catalogue holds `code`. */
export const isEngineCode = (code: string): boolean => Object.hasOwn(catalogue, code);

/** An engine error (code and parameters from the catalogue) in both languages, for an AppError's message. */
export function engineErrorMessage(e: EngineError): LocalText {
  return { en: render(e, 'en'), ja: render(e, 'ja') };
}

const ERROR_KEYS = new Set(['error', 'reason']);
const MAX_DEPTH = 6; // errors sit near the top of an answer (detail.response.models[i].error); reports are not walked

/** Every `error` field of an API answer that holds an encoded engine error is said in the caller's language. */
export function localizeErrors(value: unknown, lang: Lang, depth = 0): void {
  if (!value || typeof value !== 'object' || depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (const v of value) localizeErrors(v, lang, depth + 1);
    return;
  }
  const o = value as Record<string, unknown>;
  for (const [k, v] of Object.entries(o)) {
    if (typeof v === 'string') {
      if (ERROR_KEYS.has(k) && v.startsWith('{"code"')) o[k] = engineErrorText(v, lang);
    } else if (v && typeof v === 'object') localizeErrors(v, lang, depth + 1);
  }
}

export function installEngineErrorLocalization(app: FastifyInstance, langOf: (h: string | undefined) => Lang): void {
  app.addHook('preSerialization', async (req, _reply, payload) => {
    localizeErrors(payload, langOf(req.headers['accept-language']));
    return payload;
  });
}
