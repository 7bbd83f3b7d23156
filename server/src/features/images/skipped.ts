import { engineErrorText, isEngineCode } from '../../i18n/engine-errors.js';
import type { Lang } from '../../i18n/messages.js';
import type { ResultOf } from '../../jobs/kind.js';
import type { imagePredictJob } from './jobs.js';

/** A ZIP entry or image the engine left out: why, as a catalogue code (image_skip_<code>) with its parameters; `reason`
 * is its English words (entries stored before reasons were codes have only those). */
export interface Skipped {
  entry: string;
  reason: string;
  code?: string;
  params?: Record<string, unknown>;
}

/** What was left out and why, in `lang`, in words (never an exception's name). */
export function skippedIn(list: Skipped[] | undefined, lang: Lang): { entry: string; reason: string }[] {
  return (list ?? []).map((s) => ({
    entry: s.entry,
    reason: s.code && isEngineCode(s.code) ? (engineErrorText(JSON.stringify({ code: s.code, params: s.params ?? {} }), lang) ?? s.reason) : s.reason,
  }));
}

/** An image prediction's summary (task image_predict) with its unreadable images (failed) and left-out ZIP entries
 * (skipped) said in `lang`; results written before these lists existed have neither. */
export function imageSummaryIn(result: ResultOf<typeof imagePredictJob> | null, lang: Lang) {
  if (!result) return null;
  return { ...result, failed: skippedIn(result.failed, lang), skipped: skippedIn(result.skipped, lang) };
}
