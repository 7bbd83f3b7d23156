import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import FormControlLabel from '@mui/material/FormControlLabel';
import Grid from '@mui/material/Grid';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Switch from '@mui/material/Switch';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import { showSnackbar } from '../../lib/feedback';
import { useDebounced } from '../../lib/useDebounced';
import { createProject, money, projectsKey, type Quote, quote, usePublishable } from './api';
import { detailsPath, NS } from './common';

const MAX_COUNT = 2_147_483_647;
const TEXT = ['industry', 'use_case', 'language', 'version', 'documentation_url', 'tutorial_url', 'source_code_url', 'sandbox_url', 'cover_image_url', 'cloud_provider', 'region'] as const;
const DECIMALS = ['cpu_cores', 'memory_gb', 'gpu_gb', 'expected_rps'] as const;
const COUNTS = ['expected_requests_per_month', 'expected_unique_users', 'expected_item_count'] as const;

type Form = Record<string, string | boolean>;
const initial: Form = {
  name: '',
  key: '',
  content_language: 'ja-jp',
  industry: '',
  use_case: '',
  language: 'Python',
  version: '1.0',
  documentation_url: '',
  tutorial_url: '',
  source_code_url: '',
  sandbox_url: '',
  cover_image_url: '',
  cpu_cores: '1',
  memory_gb: '1',
  gpu_gb: '0',
  expected_requests_per_month: '100000',
  expected_rps: '1',
  expected_unique_users: '10',
  expected_item_count: '0',
  subscription_type: 'standard',
  billing_cycle: 'monthly',
  auto_scaling: false,
  cloud_provider: 'mitate',
  region: 'ap-northeast-1',
};

/** SPEC §5 on the form (the server checks the same and is the authority). */
function problems(f: Form): Record<string, string> {
  const p: Record<string, string> = {};
  if (!String(f.name).trim()) p.name = 'form.required';
  if (!String(f.content_language).trim()) p.content_language = 'form.required';
  if (!/^[a-z0-9][a-z0-9-]{1,38}[a-z0-9]$/.test(String(f.key))) p.key = 'form.keyFormat';
  for (const k of DECIMALS) if (!/^\d+(\.\d{1,7})?$/.test(String(f[k]))) p[k] = 'form.decimals';
  for (const k of COUNTS) if (!/^\d+$/.test(String(f[k])) || Number(f[k]) >= MAX_COUNT) p[k] = 'form.requestCount';
  return p;
}

function PriceCard({ q }: { q: Quote | null }) {
  const { t, i18n } = useTranslation(NS);
  if (!q) return null;
  const m = (v: number) => money(v, q.currency, i18n.language);
  return (
    <Paper variant="outlined" sx={{ p: 2 }} data-testid="price">
      <Typography variant="subtitle1" sx={{ fontWeight: 600 }}>
        {t('price.title')}
      </Typography>
      <Table size="small">
        <TableBody>
          <TableRow>
            <TableCell>{t('price.subscription')}</TableCell>
            <TableCell align="right">{m(q.subscription_price)}</TableCell>
          </TableRow>
          {q.lines.map((l) => (
            <TableRow key={l.item}>
              <TableCell sx={{ pl: 3, color: 'text.secondary' }}>{t(`price.lines.${l.item}`)}</TableCell>
              <TableCell align="right" sx={{ color: 'text.secondary' }}>
                {m(l.amount)}
              </TableCell>
            </TableRow>
          ))}
          <TableRow>
            <TableCell>{t('price.infrastructure')}</TableCell>
            <TableCell align="right">{m(q.infrastructure_price)}</TableCell>
          </TableRow>
          <TableRow>
            <TableCell sx={{ fontWeight: 600 }}>{t('price.total', { cycle: t(`price.cycle.${q.billing_cycle}`) })}</TableCell>
            <TableCell align="right" sx={{ fontWeight: 600 }} data-testid="price-total">
              {m(q.total)}
            </TableCell>
          </TableRow>
        </TableBody>
      </Table>
    </Paper>
  );
}

export default function CreatePage() {
  const { t } = useTranslation(NS);
  usePageTitle(t('form.title'));
  const navigate = useNavigate();
  const qc = useQueryClient();
  const models = usePublishable();
  const [model, setModel] = useState('');
  const [f, setF] = useState<Form>(initial);
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const [q, setQ] = useState<Quote | null>(null);
  const errs = problems(f);
  const set = (k: string) => (e: { target: { value: string } }) => setF((x) => ({ ...x, [k]: e.target.value }));
  const priceInput = useDebounced(JSON.stringify([f.subscription_type, f.billing_cycle, f.cpu_cores, f.memory_gb, f.gpu_gb, f.auto_scaling, f.expected_requests_per_month]), 250);

  useEffect(() => {
    const [subscription_type, billing_cycle, cpu, mem, gpu, auto, req] = JSON.parse(priceInput);
    if (problems({ ...initial, cpu_cores: cpu, memory_gb: mem, gpu_gb: gpu, expected_requests_per_month: req, key: 'abc' }).cpu_cores) return;
    quote({ subscription_type, billing_cycle, cpu_cores: Number(cpu), memory_gb: Number(mem), gpu_gb: Number(gpu), auto_scaling: auto, expected_requests_per_month: Number(req) }).then(setQ, () => undefined);
  }, [priceInput]);

  useEffect(() => {
    if (!model && models.data?.length) setModel(`${models.data[0].project_id}|${models.data[0].model_key}`);
  }, [models.data, model]);

  const field = (k: string, type: 'text' | 'number' = 'text', required = false) => (
    <Grid size={{ xs: 12, sm: 6, md: 4 }} key={k}>
      <TextField
        fullWidth
        size="small"
        label={t(`form.${k}`)}
        value={f[k] as string}
        onChange={set(k)}
        required={required}
        slotProps={{ htmlInput: type === 'number' ? { inputMode: 'decimal', name: k } : { name: k } }}
        error={touched && !!errs[k]}
        helperText={touched && errs[k] ? t(errs[k]) : k === 'key' ? t('form.keyHelp') : ' '}
      />
    </Grid>
  );

  async function submit() {
    setTouched(true);
    if (Object.keys(errs).length || !model) return;
    const [project_id, model_key] = model.split('|');
    const body: Record<string, unknown> = { ...f, project_id, model_key };
    for (const k of [...DECIMALS, ...COUNTS]) body[k] = Number(f[k]);
    setBusy(true);
    try {
      const p = await createProject(body as unknown as Parameters<typeof createProject>[0]);
      await qc.invalidateQueries({ queryKey: projectsKey });
      showSnackbar(t('done.created'));
      navigate(detailsPath(p.id));
    } catch {
      /* shown by the error dialog */
    } finally {
      setBusy(false);
    }
  }

  const section = (title: string) => (
    <Grid size={12}>
      <Typography variant="subtitle2" color="text.secondary" sx={{ mt: 1 }}>
        {title}
      </Typography>
    </Grid>
  );

  return (
    <>
      <PageHeader title={t('form.title')} subtitle={t('subtitle')} />
      <Box sx={{ display: 'flex', gap: 2, alignItems: 'flex-start', flexWrap: 'wrap' }}>
        <Paper variant="outlined" sx={{ p: 2, flex: 3, minWidth: 320 }}>
          {models.isSuccess && !models.data.length ? (
            <Typography color="text.secondary">{t('form.noModels')}</Typography>
          ) : (
            <Grid container spacing={2}>
              <Grid size={12}>
                <TextField select fullWidth size="small" label={t('form.model')} value={model} onChange={(e) => setModel(e.target.value)} slotProps={{ htmlInput: { name: 'model' } }}>
                  {(models.data ?? []).map((m) => (
                    <MenuItem key={`${m.project_id}|${m.model_key}`} value={`${m.project_id}|${m.model_key}`}>
                      {m.project_name} · {m.model_key} ({t(`types.${m.project_type}`, { ns: 'training', defaultValue: m.project_type })})
                    </MenuItem>
                  ))}
                </TextField>
              </Grid>
              {section(t('form.sections.about'))}
              {field('name', 'text', true)}
              {field('key', 'text', true)}
              {field('content_language', 'text', true)}
              {TEXT.map((k) => field(k))}
              {section(t('form.sections.resources'))}
              {DECIMALS.filter((k) => k !== 'expected_rps').map((k) => field(k, 'number'))}
              <Grid size={{ xs: 12, sm: 6, md: 4 }}>
                <FormControlLabel control={<Switch checked={!!f.auto_scaling} onChange={(e) => setF((x) => ({ ...x, auto_scaling: e.target.checked }))} />} label={t('form.auto_scaling')} />
              </Grid>
              {section(t('form.sections.expected'))}
              {COUNTS.map((k) => field(k, 'number'))}
              {field('expected_rps', 'number')}
              {section(t('form.sections.billing'))}
              <Grid size={{ xs: 12, sm: 6, md: 4 }}>
                <TextField select fullWidth size="small" label={t('form.subscription_type')} value={f.subscription_type} onChange={set('subscription_type')}>
                  {['free', 'standard', 'premium'].map((s) => (
                    <MenuItem key={s} value={s}>
                      {t(`form.subscription.${s}`)}
                    </MenuItem>
                  ))}
                </TextField>
              </Grid>
              <Grid size={{ xs: 12, sm: 6, md: 4 }}>
                <TextField select fullWidth size="small" label={t('form.billing_cycle')} value={f.billing_cycle} onChange={set('billing_cycle')}>
                  {['monthly', 'yearly'].map((s) => (
                    <MenuItem key={s} value={s}>
                      {t(`form.cycle.${s}`)}
                    </MenuItem>
                  ))}
                </TextField>
              </Grid>
              <Grid size={12}>
                <Button variant="contained" onClick={submit} disabled={busy || !model}>
                  {t('form.create')}
                </Button>
              </Grid>
            </Grid>
          )}
        </Paper>
        <Box sx={{ flex: 1, minWidth: 280 }}>
          <PriceCard q={q} />
        </Box>
      </Box>
    </>
  );
}
