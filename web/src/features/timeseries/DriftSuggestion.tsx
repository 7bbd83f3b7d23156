import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/errors';
import { formatInteger } from '../../lib/format';
import type { Dd } from './driftDefault';

/**
 * The engine's suggestion of slowly drifting signals for the chosen signals and period (engine timeseries/drift.py through
 * POST timeseries/drift/suggest, asked by the wizard): which drift and why, and one button that fills the fields below.
 * The button fills in the signals and N alone (the unsupervised default, driftDefault.tsx, fills in more and says so);
 * the fields stay editable.
 */
export default function DriftSuggestion({
  d,
  chosen,
  rows,
}: {
  /** The wizard's suggestion and default (driftDefault.tsx). */
  d: Dd;
  /** The drifting signals and N in the fields now: the button says when they already hold the suggestion. */
  chosen: string[];
  rows: string;
}) {
  const { t } = useTranslation('timeseries');
  const q = d.suggestion;
  const [others, setOthers] = useState(false);
  const period = t(d.body.project_type === 'time_series_anomaly_detection_supervised' ? 'wizard.driftSuggest.periodTrain' : 'wizard.driftSuggest.periodNormal');

  if (q.isPending)
    return (
      <Box data-testid="drift-suggestion" aria-busy="true">
        <Typography variant="body2" color="text.secondary">
          {t('wizard.driftSuggest.loading', { period })}
        </Typography>
        <LinearProgress sx={{ mt: 1 }} />
      </Box>
    );
  if (q.isError) {
    const e = q.error;
    const text = e instanceof ApiError ? (e.fieldErrors[0]?.message ?? e.message) : String(e);
    return (
      <Alert severity="warning" data-testid="drift-suggestion">
        {t('wizard.driftSuggest.failed', { reason: text })}
      </Alert>
    );
  }
  const s = q.data;
  const drifting = s.signals.filter((x) => x.drifts);
  // the others by how far their level moves: the nearest to a drift first
  const rest = s.signals.filter((x) => !x.drifts).sort((a, b) => (b.move ?? -1) - (a.move ?? -1));
  const applied = drifting.length > 0 && s.drift_rows !== null && chosen.length === drifting.length && drifting.every((x) => chosen.includes(x.signal)) && rows.trim() === String(s.drift_rows);
  const reason = (x: (typeof s.signals)[number]) => (
    <Box component="li" key={x.signal} sx={{ mb: 0.5 }}>
      <Typography component="span" variant="body2" sx={{ fontWeight: 600 }}>
        {x.signal}
      </Typography>
      <Typography component="span" variant="body2">
        {' — '}
        {x.reason}
      </Typography>
    </Box>
  );
  return (
    <Alert severity={drifting.length ? 'info' : 'success'} data-testid="drift-suggestion" sx={{ '& .MuiAlert-message': { width: '100%' } }}>
      <Typography variant="subtitle2">
        {s.sample_rows < s.rows
          ? t('wizard.driftSuggest.titleSampled', { period, rows: formatInteger(s.rows), sample: formatInteger(s.sample_rows) })
          : t('wizard.driftSuggest.title', { period, rows: s.rows })}
      </Typography>
      <Typography variant="body2" sx={{ mt: 0.5 }}>
        {drifting.length
          ? t('wizard.driftSuggest.found', { signals: drifting.map((x) => x.signal).join(', '), rows: s.drift_rows, count: drifting.length })
          : t('wizard.driftSuggest.none', { period })}
      </Typography>
      {drifting.length > 0 && (
        <Box component="ul" sx={{ pl: 2.5, my: 1 }} data-testid="drift-suggestion-drifting">
          {drifting.map(reason)}
        </Box>
      )}
      {drifting.length > 0 && s.drift_rows !== null && (
        <Typography variant="body2" color="text.secondary">
          {t('wizard.driftSuggest.rowsWhy', { rows: s.drift_rows })}
        </Typography>
      )}
      <Box sx={{ display: 'flex', gap: 1, mt: 1, flexWrap: 'wrap', alignItems: 'center' }}>
        {drifting.length > 0 && s.drift_rows !== null && (
          <Button variant="contained" size="small" disabled={applied} onClick={() => d.fillSuggestion(drifting.map((x) => x.signal), s.drift_rows!)}>
            {t('wizard.driftSuggest.use')}
          </Button>
        )}
        {applied && (
          <Typography variant="body2" color="text.secondary">
            {t('wizard.driftSuggest.applied')}
          </Typography>
        )}
        {rest.length > 0 && (
          <Button size="small" onClick={() => setOthers(!others)} aria-expanded={others}>
            {drifting.length
              ? t(others ? 'wizard.driftSuggest.hideOthers' : 'wizard.driftSuggest.showOthers', { count: rest.length })
              : t(others ? 'wizard.driftSuggest.hideAll' : 'wizard.driftSuggest.showAll', { count: rest.length })}
          </Button>
        )}
      </Box>
      {others && (
        <Box component="ul" sx={{ pl: 2.5, mt: 1, mb: 0 }} data-testid="drift-suggestion-others">
          {rest.map(reason)}
        </Box>
      )}
    </Alert>
  );
}
