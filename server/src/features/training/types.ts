import fs from 'node:fs';
import path from 'node:path';
import type { AlgorithmSpec } from './responses.js';

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

/** The catalogue's shapes are declared once, with the answers (responses.ts). */
export type { AlgorithmSpec, ParamSpec } from './responses.js';

let cached: Record<ProjectType, AlgorithmSpec[]> | null = null;

/** The engine's algorithm catalogue (engine/mitate_engine/ml/catalogue.json, generated from the Python registry). */
export function catalogue(): Record<ProjectType, AlgorithmSpec[]> {
  if (!cached) {
    const file = process.env.MITATE_ML_CATALOGUE || path.resolve(import.meta.dirname, '../../../../engine/mitate_engine/ml/catalogue.json');
    cached = JSON.parse(fs.readFileSync(file, 'utf8'));
  }
  return cached!;
}

export const algorithmsOf = (type: ProjectType) => catalogue()[type];
