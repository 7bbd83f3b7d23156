import Button from '@mui/material/Button';
import Grid from '@mui/material/Grid';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import { showSnackbar } from '../../lib/feedback';
import { createProject, projectsKey, usePublishable } from './api';
import { detailsPath, NS } from './common';
import ProjectForm, { bodyOf, type Form, initial, problems, serverProblems } from './ProjectForm';

export default function CreatePage() {
  const { t } = useTranslation(NS);
  usePageTitle(t('form.title'));
  const navigate = useNavigate();
  const qc = useQueryClient();
  const models = usePublishable();
  const [model, setModel] = useState('');
  const [f, setF] = useState<Form>(initial);
  const [touched, setTouched] = useState(false);
  const [serverErrs, setServerErrs] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!model && models.data?.length) setModel(`${models.data[0].project_id}|${models.data[0].model_key}`);
  }, [models.data, model]);

  async function submit() {
    setTouched(true);
    if (Object.keys(problems(f)).length || !model) return;
    const [project_id, model_key] = model.split('|');
    setBusy(true);
    try {
      const p = await createProject({ ...bodyOf(f), project_id, model_key } as unknown as Parameters<typeof createProject>[0]);
      await qc.invalidateQueries({ queryKey: projectsKey });
      showSnackbar(t('done.created'));
      navigate(detailsPath(p.id));
    } catch (err) {
      setServerErrs(serverProblems(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <PageHeader title={t('form.title')} subtitle={t('subtitle')} />
      <ProjectForm
        f={f}
        setF={setF}
        touched={touched}
        serverErrs={serverErrs}
        withKey
        instead={models.isSuccess && !models.data.length ? <Typography color="text.secondary">{t('form.noModels')}</Typography> : undefined}
        head={
          <Grid size={12}>
            <TextField select fullWidth size="small" label={t('form.model')} value={model} onChange={(e) => setModel(e.target.value)} slotProps={{ htmlInput: { name: 'model' } }}>
              {(models.data ?? []).map((m) => (
                <MenuItem key={`${m.project_id}|${m.model_key}`} value={`${m.project_id}|${m.model_key}`}>
                  {m.project_name} · {m.model_key} ({t(`types.${m.project_type}`, { ns: 'training', defaultValue: m.project_type })})
                </MenuItem>
              ))}
            </TextField>
          </Grid>
        }
        actions={
          <Button variant="contained" onClick={submit} disabled={busy || !model}>
            {t('form.create')}
          </Button>
        }
      />
    </>
  );
}
