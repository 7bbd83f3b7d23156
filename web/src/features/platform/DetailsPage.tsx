import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate, useParams } from 'react-router';
import { useMe } from '../../api/me';
import { usePageTitle } from '../../app/pageTitle';
import InfoGrid from '../../components/InfoGrid';
import LinkAlert from '../../components/LinkAlert';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { formatDateTime } from '../../lib/format';
import ProjectLockNotice from '../billing/ProjectLockNotice';
import { act, deleteProject, EDITABLE, isTimeSeries, money, type PlatformProject, projectsKey, useIsPlatformAdmin, useProject, useTsInterface } from './api';
import { canManage, editPath, NS, StatusChip, useConfirm } from './common';
import CredentialsPanel from './CredentialsPanel';
import ImageRequestPanel, { imageExamples } from './ImageRequestPanel';
import DriftPanel from './DriftPanel';
import StatsPanel from './StatsPanel';
import TimeSeriesPanel from './TimeSeriesPanel';
import { openApiHead } from './openapiHead';

function examples(p: PlatformProject, csvComment: string) {
  const row = Object.fromEntries(p.features.map((f) => [f, 0]));
  const json = JSON.stringify({ rows: [row] });
  return {
    curl: `curl -X POST '${p.endpoint}' \\\n  -H "X-API-Key: $MITATE_API_KEY" \\\n  -H 'Content-Type: application/json' \\\n  -d '${json}'\n\n# ${csvComment}\ncurl -X POST '${p.endpoint}' \\\n  -H "X-API-Key: $MITATE_API_KEY" \\\n  -H 'Content-Type: text/csv' \\\n  --data-binary @rows.csv`,
    python: `import os, requests\n\nres = requests.post(\n    "${p.endpoint}",\n    headers={"X-API-Key": os.environ["MITATE_API_KEY"]},\n    json=${json},\n    timeout=10,\n)\nres.raise_for_status()\nprint(res.json()["detail"]["response"]["predictions"])`,
    openapi: [
      ...openApiHead(p),
      '      requestBody:',
      '        content:',
      '          application/json:',
      '            schema:',
      '              type: object',
      '              properties:',
      '                rows:',
      '                  type: array',
      '                  items:',
      '                    type: object',
      `                    required: ${JSON.stringify(p.features)}`,
      '          text/csv: { schema: { type: string } }',
      '      responses:',
      `        '200': { description: 'detail.response.predictions: one object per row with ${p.outputs.join(', ')}' }`,
      `        '422': { description: 'a missing column, a wrong type or an unseen category (loc names the column)' }`,
      `        '401': { description: 'missing, wrong or revoked key' }`,
      `        '429': { description: 'sandbox key rate limit' }`,
      `        '503': { description: 'the API is stopped' }`,
    ].join('\n'),
  };
}

/** The time-series interface (a detector's API) in place of the tabular examples; nothing else otherwise. */
function TsInterface({ project }: { project: PlatformProject }) {
  const d = useTsInterface(project);
  return d.data ? <TimeSeriesPanel project={project} data={d.data} /> : null;
}

export default function DetailsPage() {
  const { id = '' } = useParams();
  const { t, i18n } = useTranslation(NS);
  const navigate = useNavigate();
  const qc = useQueryClient();
  const project = useProject(id);
  const admin = useIsPlatformAdmin();
  const me = useMe();
  const { ask, dialog } = useConfirm();
  const [tab, setTab] = useState<'curl' | 'python' | 'openapi'>('curl');
  usePageTitle(project.data?.name ?? t('title'));
  if (!project.data) return <PageLoading />;
  const p = project.data;
  const manage = canManage(me.data);
  const noReview = admin.data?.review_required === false;
  const word = (a: string) => (a === 'submit' && noReview ? 'submitNow' : a);
  const refresh = () => qc.invalidateQueries({ queryKey: projectsKey });
  const ex = p.image ? imageExamples(p, p.image, { json: t('image.jsonComment') }) : examples(p, t('details.csvBodyComment'));
  const m = (v: number) => money(v, p.currency, i18n.language);
  return (
    <>
      <PageHeader
        title={
          <Box component="span" sx={{ display: 'inline-flex', gap: 1.5, alignItems: 'center' }}>
            {p.name} <StatusChip status={p.status} />
          </Box>
        }
        subtitle={`${p.model.project_name} · ${p.model.model_key} · v${p.settings.version}`}
        actions={
          manage && (
            <>
              {EDITABLE.includes(p.status) && (
                <Button variant="outlined" component={RouterLink} to={editPath(p.id)}>
                  {t('common.edit', { ns: 'translation' })}
                </Button>
              )}
              {p.actions.map((a) => (
                // With the review switched off (installation setting), submitting approves at once: the words say so.
                <Button key={a} variant={a === 'start' || a === 'submit' ? 'contained' : 'outlined'} onClick={() => ask({ label: t(`action.${word(a)}`), text: t(`confirm.${word(a)}`, { name: p.name }), done: t(`done.${word(a)}`), run: () => act(p.id, a).then(refresh) })}>
                  {t(`action.${word(a)}`)}
                </Button>
              ))}
              <Button
                color="error"
                variant="outlined"
                onClick={() =>
                  ask({
                    label: t('action.delete'),
                    text: t('confirm.delete', { name: p.name }),
                    destructive: true,
                    done: t('done.delete'),
                    run: () => deleteProject(p.id).then(async () => {
                      await refresh();
                      navigate('/platform');
                    }),
                  })
                }
              >
                {t('action.delete')}
              </Button>
            </>
          )
        }
      />
      <ProjectLockNotice projectId={p.id} />
      {p.status === 'rejected' && p.reason && (
        <Alert severity="error" sx={{ mb: 2 }}>
          {t('details.rejected', { reason: p.reason })}
        </Alert>
      )}
      {p.status === 'under_review' &&
        (admin.data?.platform_admin ? (
          <LinkAlert severity="info" sx={{ mb: 2 }} to="/admin/platform" linkLabel={t('details.reviewNow')}>
            {t('details.underReviewAdmin')}
          </LinkAlert>
        ) : (
          <Alert severity="info" sx={{ mb: 2 }}>
            {t('details.underReview')}
          </Alert>
        ))}
      {p.status === 'draft' && (
        <Alert severity="info" sx={{ mb: 2 }} data-testid="draft-hint">
          {t(noReview ? 'details.draftHintNow' : 'details.draftHint')}
        </Alert>
      )}
      <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
        <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
          {t('details.overview')}
        </Typography>
        <InfoGrid
          items={[
            { label: t('details.endpoint'), value: <code data-testid="endpoint">{p.endpoint}</code> },
            { label: t('col.key'), value: p.key },
            ...(p.image
              ? [
                  { label: t('image.input'), value: t('image.inputValue', { side: p.image.image_size }) },
                  { label: t('details.outputs'), value: p.image.kind === 'analysis' ? t('image.outputsOkNg') : t('image.outputsClass') },
                ]
              : [
                  { label: t('details.inputs'), value: p.features.join(', ') },
                  { label: t('details.outputs'), value: p.outputs.join(', ') },
                ]),
            { label: t('form.content_language'), value: p.settings.content_language },
            { label: t('form.industry'), value: p.settings.industry || '—' },
            { label: t('form.use_case'), value: p.settings.use_case || '—' },
            { label: t('form.cpu_cores'), value: String(p.settings.cpu_cores) },
            { label: t('form.memory_gb'), value: String(p.settings.memory_gb) },
            { label: t('form.gpu_gb'), value: String(p.settings.gpu_gb) },
            { label: t('form.expected_requests_per_month'), value: String(p.settings.expected_requests_per_month) },
            { label: t('form.subscription_type'), value: t(`form.subscription.${p.settings.subscription_type}`) },
            { label: t('form.billing_cycle'), value: t(`form.cycle.${p.settings.billing_cycle}`) },
            { label: t('price.subscription'), value: m(p.subscription_price) },
            { label: t('price.infrastructure'), value: m(p.infrastructure_price) },
            { label: t('form.cloud_provider'), value: `${p.settings.cloud_provider} · ${p.settings.region}` },
            { label: t('col.created'), value: formatDateTime(p.created_at) },
            { label: t('col.updated'), value: formatDateTime(p.updated_at) },
          ]}
        />
      </Paper>
      {p.image && <ImageRequestPanel image={p.image} />}
      <CredentialsPanel project={p} canWrite={manage} />
      <StatsPanel project={p} />
      {/* drift: table models' inputs, image models' served scores (time-series detectors have their own alarms) */}
      {!isTimeSeries(p) && <DriftPanel project={p} canCheck={!!me.data && me.data.role !== 'viewer'} canManage={manage} image={p.image?.kind} />}
      {isTimeSeries(p) && <TsInterface project={p} />}
      {!isTimeSeries(p) && (
        <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
          <Typography variant="h6" component="h2">
            {t('details.examples')}
          </Typography>
          <Tabs value={tab} onChange={(_, v) => setTab(v)} sx={{ mb: 1 }}>
            <Tab value="curl" label="curl" />
            <Tab value="python" label="Python" />
            <Tab value="openapi" label={t('details.openapi')} />
          </Tabs>
          <Box component="pre" sx={{ bgcolor: 'action.hover', p: 1.5, borderRadius: 1, overflowX: 'auto', fontSize: 13, m: 0 }}>
            {ex[tab]}
          </Box>
        </Paper>
      )}
      {dialog}
    </>
  );
}
