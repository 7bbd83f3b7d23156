import { engineErrorText } from '../../i18n/engine-errors.js';
import type { Lang } from '../../i18n/messages.js';
import type { AlgorithmSpec } from './responses.js';
import type { Catalogue } from './stored.js';

/** The five tabular training types: SPEC §7 path prefix, web routes, and whether a target is needed. */
export const PROJECT_TYPES = ['regression', 'soft_sensor', 'discriminant_analysis', 'clustering', 'dimensional_compression'] as const;
export type ProjectType = (typeof PROJECT_TYPES)[number];

export interface TypeInfo {
  type: ProjectType;
  /** SPEC §7 prefix of the type's calls */
  prefix: string;
  label: { en: string; ja: string };
  supervised: boolean;
  /** a target is optional (dimensional compression colours its map by it) */
  targetOptional: boolean;
  /** the prediction report route segment of the web app */
  predictionReport: string;
}

export const TYPES: Record<ProjectType, TypeInfo> = {
  regression: { type: 'regression', prefix: 'regress', label: { en: 'regression', ja: '回帰' }, supervised: true, targetOptional: false, predictionReport: 'regression' },
  soft_sensor: { type: 'soft_sensor', prefix: 'softsensor', label: { en: 'soft sensor', ja: 'ソフトセンサー' }, supervised: true, targetOptional: false, predictionReport: 'soft-sensor' },
  discriminant_analysis: {
    type: 'discriminant_analysis',
    prefix: 'discriminant/analysis',
    label: { en: 'discriminant analysis', ja: '判別分析' },
    supervised: true,
    targetOptional: false,
    predictionReport: 'discriminant-analysis',
  },
  clustering: { type: 'clustering', prefix: 'clustering', label: { en: 'clustering', ja: 'クラスタリング' }, supervised: false, targetOptional: false, predictionReport: 'clustering' },
  dimensional_compression: {
    type: 'dimensional_compression',
    prefix: 'dimensional/compression',
    label: { en: 'dimensional compression', ja: '次元圧縮' },
    supervised: false,
    targetOptional: true,
    predictionReport: 'dimensional-compression',
  },
};

/** The catalogue's shapes as the API answers them are declared once, with the answers (responses.ts). */
export type { AlgorithmSpec } from './responses.js';


/** A catalogue message key as a message parameter: the error handler says it in the reader's language. */
export const catalogueWord = (key: string) => JSON.stringify({ code: key });
/** A catalogue text in `lang` (the key itself if messages.json lacks it, which the engine's tests rule out). */
export const catalogueText = (key: string, lang: Lang) => engineErrorText(catalogueWord(key), lang) ?? key;

/** The algorithms of a type as the wizard shows them: names, parameter labels and help in `lang`. */
export function localAlgorithms(catalogue: Catalogue, type: ProjectType, lang: Lang): AlgorithmSpec[] {
  return catalogue[type].map((a) => ({
    key: a.key,
    label: catalogueText(a.name_key, lang),
    tree: a.tree,
    params: a.params.map(({ label_key, help_key, choice_keys, ...p }) => ({
      ...p,
      label: catalogueText(label_key, lang),
      help: catalogueText(help_key, lang),
      // a choice without a key (a plain number) is said as it is
      ...(p.choices && { choice_labels: p.choices.map((c, i) => (choice_keys?.[i] ? catalogueText(choice_keys[i], lang) : String(c))) }),
    })),
  }));
}

/** An algorithm's name in `lang` (any tabular type; the key itself when unknown). */
export function algorithmName(catalogue: Catalogue, key: string, lang: Lang): string {
  for (const t of PROJECT_TYPES) {
    const a = catalogue[t].find((x) => x.key === key);
    if (a) return catalogueText(a.name_key, lang);
  }
  return key;
}

/** Each hyper-parameter's label in `lang` for an algorithm of a type ({} when unknown). */
export function paramLabels(catalogue: Catalogue, type: ProjectType, key: string, lang: Lang): Record<string, string> {
  const a = catalogue[type]?.find((x) => x.key === key);
  return Object.fromEntries((a?.params ?? []).map((p) => [p.name, catalogueText(p.label_key, lang)]));
}

export const isTabular = (type: string): type is ProjectType => (PROJECT_TYPES as readonly string[]).includes(type);
