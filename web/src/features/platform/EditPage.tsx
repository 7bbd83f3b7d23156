import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate, useParams } from 'react-router';
import { useMe } from '../../api/me';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { showSnackbar } from '../../lib/feedback';
import { EDITABLE, type PlatformProject, projectsKey, updateProject, useProject } from './api';
import { canManage, detailsPath, NS } from './common';
import ProjectForm, { changes, type Form, formOf, problems, serverProblems } from './ProjectForm';

/** The form of a draft or rejected project, filled with its values; Save sends what changed. */
function EditForm({ p }: { p: PlatformProject }) {
  const { t } = useTranslation(NS);
  const navigate = useNavigate();
  const qc = useQueryClient();
  // the values when the page opened: the project is polled, and a refresh must not undo the user's typing
  const [before] = useState<Form>(() => formOf(p));
  const [f, setF] = useState<Form>(before);
  const [touched, setTouched] = useState(false);
  const [serverErrs, setServerErrs] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const back = () => navigate(detailsPath(p.id));

  async function save() {
    setTouched(true);
    if (Object.keys(problems(f)).length) return;
    const body = changes(f, before);
    if (!Object.keys(body).length) return back();
    setBusy(true);
    try {
      await updateProject(p.id, body as Parameters<typeof updateProject>[1]);
      await qc.invalidateQueries({ queryKey: projectsKey });
      showSnackbar(t('done.saved'));
      back();
    } catch (err) {
      setServerErrs(serverProblems(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <ProjectForm
      f={f}
      setF={setF}
      touched={touched}
      serverErrs={serverErrs}
      withKey={false}
      actions={
        <>
          <Button variant="contained" onClick={save} disabled={busy}>
            {t('common.save', { ns: 'translation' })}
          </Button>
          <Button onClick={back} disabled={busy}>
            {t('common.cancel', { ns: 'translation' })}
          </Button>
        </>
      }
    />
  );
}

export default function EditPage() {
  const { id = '' } = useParams();
  const { t } = useTranslation(NS);
  const project = useProject(id);
  const me = useMe();
  usePageTitle(project.data ? t('edit.title', { name: project.data.name }) : t('title'));
  if (!project.data || !me.data) return <PageLoading />;
  const p = project.data;
  const editable = canManage(me.data) && EDITABLE.includes(p.status);
  return (
    <>
      <PageHeader title={t('edit.title', { name: p.name })} subtitle={`${p.model.project_name} · ${p.model.model_key} · ${p.key}`} />
      {editable ? (
        <EditForm p={p} />
      ) : (
        <Alert
          severity="info"
          action={
            <Button color="inherit" size="small" component={RouterLink} to={detailsPath(p.id)}>
              {t('edit.toDetails')}
            </Button>
          }
        >
          {t(canManage(me.data) ? 'edit.notEditable' : 'edit.notAllowed')}
        </Alert>
      )}
    </>
  );
}
