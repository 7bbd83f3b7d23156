import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { engineDir } from '../jobs/engine.js';
import type { Lang, LocalText } from './messages.js';

/**
 * Engine errors in the caller's language. The engine fails a job (or a model) with JSON {code, params, message};
 * its catalogue engine/mitate_engine/messages.json holds the en/ja texts of every code, so the engine's English and
 * the server's rendering come from one file. A parameter may itself be such an error (a preprocessing step's reason).
 */
const catalogue: Record<string, LocalText> = JSON.parse(fs.readFileSync(path.join(engineDir, 'mitate_engine', 'messages.json'), 'utf8'));

interface Encoded {
  code: string;
  params?: Record<string, unknown>;
  message?: string;
}

const isEncoded = (v: unknown): v is Encoded => !!v && typeof v === 'object' && typeof (v as Encoded).code === 'string';

function decode(text: string): Encoded | null {
  if (!text.startsWith('{"code"')) return null;
  try {
    const v = JSON.parse(text);
    return isEncoded(v) ? v : null;
  } catch {
    return null;
  }
}

function render(e: Encoded, lang: Lang, extra?: Record<string, LocalText>): string {
  const known = extra?.[e.code] ?? catalogue[e.code];
  if (!known) return e.message ?? e.code;
  const params = e.params ?? {};
  return known[lang].replace(/\{(\w+)\}/g, (whole, k: string) => {
    const v = params[k];
    if (v === null || v === undefined) return whole;
    if (isEncoded(v)) return render(v, lang, extra);
    if (typeof v === 'number' && Number.isInteger(v)) return v.toLocaleString('en-US');
    return String(v);
  });
}

/** A job's or model's error text for the reader: an encoded engine error in `lang`, anything else as it is.
 * `extra`: an area's own catalogue for codes the engine shares with it (statistical analysis). */
export function engineErrorText(error: string | null | undefined, lang: Lang, extra?: Record<string, LocalText>): string | null {
  if (error === null || error === undefined) return null;
  const e = decode(error);
  return e ? render(e, lang, extra) : error;
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
export function engineErrorMessage(e: Encoded): LocalText {
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
