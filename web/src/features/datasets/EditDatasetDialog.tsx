import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import TextField from '@mui/material/TextField';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DATA_TYPES, DATASET_TYPES, isOneOf, TRAINING_TYPES, type Dataset, type DatasetUpdate } from '../../api/types';
import { showSnackbar } from '../../lib/feedback';
import { datasetKeys, updateDataset } from './api';
import EnumSelect from './EnumSelect';
import { dataTypeLabel, trainingTypeLabel, typeLabel } from './labels';

const fromDataset = (d: Dataset): DatasetUpdate => ({
  name: d.name ?? '',
  category: d.category ?? '',
  comment: d.comment ?? '',
  training_type: d.training_type || 'regression',
  data_type: d.data_type ?? 'training_data',
  type: d.type ?? 'supervised',
});

/** The call's body: the choices are the enums' values (the selects offer nothing else). */
const toBody = (f: DatasetUpdate) => ({
  name: f.name.trim(),
  category: f.category,
  comment: f.comment,
  training_type: isOneOf(TRAINING_TYPES, f.training_type) ? f.training_type : undefined,
  data_type: isOneOf(DATA_TYPES, f.data_type) ? f.data_type : undefined,
  type: isOneOf(DATASET_TYPES, f.type) ? f.type : undefined,
});

/** PUT /api/dataset/{id} with {name, category, comment, training_type, data_type, type}. */
export default function EditDatasetDialog({ dataset, onClose }: { dataset: Dataset | null; onClose: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [form, setForm] = useState<DatasetUpdate | null>(null);
  const [submitted, setSubmitted] = useState(false);
  useEffect(() => {
    setForm(dataset ? fromDataset(dataset) : null);
    setSubmitted(false);
  }, [dataset]);

  const save = useMutation({
    mutationFn: (form: DatasetUpdate) => updateDataset(dataset!.id, toBody(form)),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: datasetKeys.all });
      showSnackbar(t('dataset.updated'));
      onClose();
    },
  });

  const set = (k: keyof DatasetUpdate) => (v: string) => setForm((f) => (f ? { ...f, [k]: v } : f));
  const nameMissing = !!form && !form.name.trim();

  return (
    <Dialog open={!!dataset && !!form} onClose={save.isPending ? undefined : onClose} maxWidth="sm" fullWidth aria-labelledby="edit-dataset-title">
      <DialogTitle id="edit-dataset-title">{t('dataset.editTitle')}</DialogTitle>
      {form && (
        <Box
          component="form"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            setSubmitted(true);
            if (nameMissing) return;
            save.mutate(form);
          }}
        >
          <DialogContent dividers sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, gap: 2 }}>
            <Box sx={{ gridColumn: '1 / -1' }}>
              <TextField
                label={t('dataset.fields.name')}
                value={form.name}
                onChange={(e) => set('name')(e.target.value)}
                required
                fullWidth
                autoFocus
                error={submitted && nameMissing}
                helperText={submitted && nameMissing ? t('validation.required') : undefined}
              />
            </Box>
            <TextField label={t('dataset.fields.category')} value={form.category} onChange={(e) => set('category')(e.target.value)} fullWidth />
            <EnumSelect
              label={t('dataset.fields.trainingType')}
              value={form.training_type}
              options={TRAINING_TYPES}
              labelOf={(v) => trainingTypeLabel(t, v)}
              onChange={set('training_type')}
              required
            />
            <EnumSelect label={t('dataset.fields.dataType')} value={form.data_type} options={DATA_TYPES} labelOf={(v) => dataTypeLabel(t, v)} onChange={set('data_type')} />
            <EnumSelect label={t('dataset.fields.type')} value={form.type} options={DATASET_TYPES} labelOf={(v) => typeLabel(t, v)} onChange={set('type')} />
            <Box sx={{ gridColumn: '1 / -1' }}>
              <TextField label={t('dataset.fields.comment')} value={form.comment} onChange={(e) => set('comment')(e.target.value)} fullWidth multiline minRows={3} />
            </Box>
          </DialogContent>
          <DialogActions>
            <Button onClick={onClose} disabled={save.isPending}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" variant="contained" disabled={save.isPending}>
              {t('common.save')}
            </Button>
          </DialogActions>
        </Box>
      )}
    </Dialog>
  );
}
