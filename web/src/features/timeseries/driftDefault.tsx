import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import { type Dispatch, type SetStateAction, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useDebounced } from '../../lib/useDebounced';
import { type DriftSuggestBody, type DriftSuggestion, modeOf, useDriftSuggestion } from './api';

/**
 * The unsupervised default when signals drift within the normal period (engine timeseries/drift.py DEFAULTS, sent with the
 * suggestion): the drifting signals by their change over N rows, the others through short windows, and every
 * detector's alarm rule k of the last n rows. The wizard fills these fields in (as text, as the person would type
 * them) while the person has not changed them.
 */
export type DriftDefault = { drift: string[]; rows: string; windows: string; alarm: { k: string; n: string } };

/** The fields the default fills in, as they are now; `alarm`: [k, n] of each detector that has an alarm rule. */
export type DriftFields = { drift: string[]; rows: string; windows: string; alarm: [string, string][] };

export function defaultOf(s: DriftSuggestion | undefined): DriftDefault | null {
  if (!s?.defaults || !s.drift_signals.length || s.drift_rows === null) return null;
  const d = s.defaults;
  return { drift: [...s.drift_signals], rows: String(s.drift_rows), windows: d.windows.join(', '), alarm: { k: String(d.alarm_k), n: String(d.alarm_n) } };
}

/** Whether the fields still hold what the default filled in last (or are empty, as they start, when it filled in
 * nothing): only then may a new suggestion replace them. */
export function untouched(now: DriftFields, last: DriftDefault | null): boolean {
  const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  return (
    same(now.drift, last?.drift ?? []) &&
    now.rows.trim() === (last?.rows ?? '') &&
    now.windows.trim() === (last?.windows ?? '') &&
    now.alarm.every(([k, n]) => k.trim() === (last?.alarm.k ?? '') && n.trim() === (last?.alarm.n ?? ''))
  );
}

type Params = Record<string, Record<string, string>>;
type Setter<T> = Dispatch<SetStateAction<T>>;

/**
 * The wizard's suggestion of drifting signals (asked once the fields have rested) and the default that goes with it:
 * filled in while the fields still hold what it filled in last, replaced when the period or the signals change its
 * answer, never over the person's own values; `keepLevels` takes it out (every signal by its level, no windows, 1 of
 * 1) until `apply` puts it back.
 */
export function useDriftDefault({
  datasetId,
  body,
  asking,
  algorithms,
  fields,
  set,
}: {
  datasetId: string;
  body: DriftSuggestBody;
  asking: boolean;
  algorithms: { key: string; params: { name: string }[] }[];
  fields: { drift: string[]; rows: string; windows: string; params: Params };
  set: { drift: Setter<string[]>; rows: Setter<string>; windows: Setter<string>; params: Setter<Params> };
}) {
  const { i18n } = useTranslation('timeseries');
  const asked = JSON.parse(useDebounced(JSON.stringify(body), 400)) as DriftSuggestBody;
  const suggestion = useDriftSuggestion(datasetId, asked, i18n.language, asking && asked.feature_variables.length > 0 && !!asked.time_column);
  // the detectors whose alarm rule the default sets (every one that has k and n)
  const alarmKeys = algorithms.filter((a) => ['alarm_k', 'alarm_n'].every((n) => a.params.some((p) => p.name === n))).map((a) => a.key);
  const [last, setLast] = useState<DriftDefault | null>(null);
  const [kept, setKept] = useState(false);
  const offered = modeOf(body.project_type) === 'unsupervised' ? defaultOf(suggestion.data) : null;
  const now: DriftFields = { drift: fields.drift, rows: fields.rows, windows: fields.windows, alarm: alarmKeys.map((k) => [fields.params[k]?.alarm_k ?? '', fields.params[k]?.alarm_n ?? '']) };
  const fill = (next: DriftDefault | null) => {
    set.drift(next?.drift ?? []);
    set.rows(next?.rows ?? '');
    set.windows(next?.windows ?? '');
    set.params((p) => ({ ...p, ...Object.fromEntries(alarmKeys.map((k) => [k, { ...(p[k] ?? {}), alarm_k: next?.alarm.k ?? '', alarm_n: next?.alarm.n ?? '' }])) }));
    setLast(next);
  };
  useEffect(() => {
    if (suggestion.data && !kept && untouched(now, last)) fill(offered);
    // a new answer (or the catalogue's alarm fields) is what changes the default; the fields are read as they are then
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [suggestion.data, alarmKeys.join()]);
  return {
    suggestion,
    body,
    offered,
    alarmKeys,
    /** What the default filled in, while the fields still hold it. */
    applied: last && untouched(now, last) ? last : null,
    keepLevels: () => {
      setKept(true);
      fill(null);
    },
    apply: () => {
      setKept(false);
      fill(offered);
    },
    /** The suggestion's button: the drifting signals and N alone. */
    fillSuggestion: (signals: string[], rows: number) => {
      set.drift(signals);
      set.rows(String(rows));
    },
  };
}

export type Dd = ReturnType<typeof useDriftDefault>;

/** Says what the default filled in and why, with the way out (every signal by its level, no windows, 1 of 1) and back. */
export function DriftDefaultNote({ d }: { d: Dd }) {
  const { t } = useTranslation('timeseries');
  const applied = d.applied;
  if (applied)
    return (
      <Alert severity="info" data-testid="drift-default" action={<Button size="small" onClick={d.keepLevels}>{t('wizard.driftDefault.keepLevels')}</Button>}>
        <Typography variant="body2">
          {t('wizard.driftDefault.applied', { signals: applied.drift.join(', '), rows: applied.rows, windows: applied.windows, k: applied.alarm.k, n: applied.alarm.n, count: applied.drift.length })}
        </Typography>
        <Typography variant="body2" color="text.secondary" sx={{ mt: 0.5 }}>
          {t('wizard.driftDefault.why')}
        </Typography>
      </Alert>
    );
  if (!d.offered) return null;
  return (
    <Alert severity="info" data-testid="drift-default" action={<Button size="small" onClick={d.apply}>{t('wizard.driftDefault.apply')}</Button>}>
      {t('wizard.driftDefault.notApplied')}
    </Alert>
  );
}

/** In the detectors step: the alarm rule in the fields came from the default. */
export function DriftDefaultAlarmNote({ d, chosen }: { d: Dd; chosen: string[] }) {
  const { t } = useTranslation('timeseries');
  if (!d.applied || !d.alarmKeys.some((k) => chosen.includes(k))) return null;
  return (
    <Alert severity="info" data-testid="drift-default-alarm">
      {t('wizard.driftDefault.alarmNote', { k: d.applied.alarm.k, n: d.applied.alarm.n })}
    </Alert>
  );
}
