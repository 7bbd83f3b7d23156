import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DatasetColumn } from '../../api/types';
import { ColumnSelect, ColumnsSelect } from '../visualization/ColumnPicker';
import type { StepDraft } from './api';
import { CATALOGUE, fieldsFor, newStep, PROCESS_TYPES, stepProblem } from './catalogue';

interface Props {
  open: boolean;
  initial: StepDraft | null;
  /** the columns as they are before this step (earlier steps may add, drop or rename columns) */
  columns: DatasetColumn[];
  onClose: () => void;
  onSave: (step: StepDraft) => void;
}

/** Adds or edits one step: kind, method, columns and the method's parameters. */
export default function StepEditor({ open, initial, columns, onClose, onSave }: Props) {
  const { t } = useTranslation('preprocessing');
  const [step, setStep] = useState<StepDraft>(initial ?? newStep('outliers'));
  const [touched, setTouched] = useState(false);
  useEffect(() => {
    if (open) {
      setStep(initial ?? newStep('outliers'));
      setTouched(false);
    }
  }, [open, initial]);
  const spec = CATALOGUE[step.process_type];
  const names = columns.map((c) => c.name);
  const numeric = columns.filter((c) => c.type === 'integer' || c.type === 'float').map((c) => c.name);
  const rename = step.process_type === 'columns' && step.method === 'rename';
  const usesColumns = spec.columns !== 'none' && !spec.noColumnsFor?.includes(step.method);
  const problem = stepProblem(step);
  const setParam = (k: string, v: unknown) => setStep((s) => ({ ...s, params: { ...s.params, [k]: v } }));
  const mapping = step.params.mapping ?? {};

  return (
    <Dialog open={open} onClose={onClose} maxWidth="sm" fullWidth aria-labelledby="step-editor-title">
      <DialogTitle id="step-editor-title">{initial ? t('editStep') : t('addStep')}</DialogTitle>
      <DialogContent>
        <Box sx={{ display: 'grid', gap: 2, pt: 1 }}>
          <TextField select label={t('processType')} value={step.process_type} onChange={(e) => setStep(newStep(e.target.value))}>
            {PROCESS_TYPES.map((p) => (
              <MenuItem key={p} value={p}>
                {t(`types.${p}`)}
              </MenuItem>
            ))}
          </TextField>
          <TextField
            select
            label={t('method')}
            value={step.method}
            onChange={(e) => setStep((s) => ({ ...newStep(s.process_type, e.target.value), columns: s.columns }))}
            helperText={t(`methodHelp.${step.process_type}.${step.method}`, { defaultValue: '' })}
          >
            {spec.methods.map((m) => (
              <MenuItem key={m} value={m}>
                {t(`methods.${step.process_type}.${m}`)}
              </MenuItem>
            ))}
          </TextField>
          {usesColumns && !(step.process_type === 'sort') && (
            <Box>
              <ColumnsSelect
                label={rename ? t('columnsToRename') : spec.columnsOptional ? t('columnsOptional') : t('columnsLabel')}
                options={spec.columns === 'numeric' ? numeric : names}
                value={rename ? Object.keys(mapping) : step.columns}
                onChange={(v) => {
                  if (rename) setParam('mapping', Object.fromEntries(v.map((c) => [c, mapping[c] ?? ''])));
                  else setStep((s) => ({ ...s, columns: v }));
                }}
              />
              {spec.columnsOptional && (
                <Typography variant="caption" color="text.secondary">
                  {spec.columns === 'numeric' ? t('allNumericIfEmpty') : t('allIfEmpty')}
                </Typography>
              )}
            </Box>
          )}
          {step.process_type === 'sort' && step.method === 'column' && (
            <ColumnSelect label={t('columnLabel')} options={names} value={step.columns[0] ?? null} onChange={(v) => setStep((s) => ({ ...s, columns: v ? [v] : [] }))} />
          )}
          {rename &&
            Object.keys(mapping).map((c) => (
              <TextField key={c} label={t('newNameOf', { name: c })} value={mapping[c]} onChange={(e) => setParam('mapping', { ...mapping, [c]: e.target.value })} />
            ))}
          {fieldsFor(step.process_type, step.method).map((f) => {
            const label = t(`params.${f.key}`);
            const help = t(`paramHelp.${step.process_type}.${f.key}`, { defaultValue: '' });
            const value = step.params[f.key] ?? '';
            if (f.kind === 'select') {
              return (
                <TextField key={f.key} select label={label} value={String(value)} onChange={(e) => setParam(f.key, e.target.value)} helperText={help}>
                  {f.options!.map((o) => (
                    <MenuItem key={o} value={o}>
                      {t(`options.${f.key}.${o}`, { defaultValue: o })}
                    </MenuItem>
                  ))}
                </TextField>
              );
            }
            if (f.kind === 'column') {
              return <ColumnSelect key={f.key} label={label} options={names} value={(value as string) || null} onChange={(v) => setParam(f.key, v ?? '')} />;
            }
            if (step.process_type === 'filter' && (f.key === 'value' || f.key === 'value2')) {
              const op = String(step.params.op);
              if (op === 'is_missing' || op === 'not_missing') return null;
              if (f.key === 'value2' && op !== 'between') return null;
            }
            return (
              <TextField
                key={f.key}
                label={label}
                value={String(value)}
                onChange={(e) => setParam(f.key, e.target.value)}
                helperText={help}
                multiline={f.kind === 'expression'}
                minRows={f.kind === 'expression' ? 2 : undefined}
                slotProps={{ htmlInput: f.kind === 'number' || f.kind === 'integer' ? { inputMode: 'decimal' } : { spellCheck: false } }}
                required={!f.optional}
              />
            );
          })}
          {step.process_type === 'computed' && (
            <Alert severity="info" sx={{ whiteSpace: 'pre-line' }}>
              {t('expressionHelp')}
            </Alert>
          )}
          {touched && problem && <Alert severity="warning">{t(`invalid.${problem}`)}</Alert>}
        </Box>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('cancel')}</Button>
        <Button
          variant="contained"
          onClick={() => {
            setTouched(true);
            if (!problem) onSave(step);
          }}
        >
          {initial ? t('saveStep') : t('addStep')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
