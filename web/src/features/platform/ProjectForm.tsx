import Box from '@mui/material/Box';
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
import { type Dispatch, type ReactNode, type SetStateAction, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, reportError } from '../../api/client';
import { useDebounced } from '../../lib/useDebounced';
import { money, type PlatformProject, type Quote, quote } from './api';
import { NS } from './common';

const MAX_COUNT = 2_147_483_647;
const TEXT = ['industry', 'use_case', 'language', 'version', 'documentation_url', 'tutorial_url', 'source_code_url', 'sandbox_url', 'cover_image_url', 'cloud_provider', 'region'] as const;
const DECIMALS = ['cpu_cores', 'memory_gb', 'gpu_gb', 'expected_rps'] as const;
const COUNTS = ['expected_requests_per_month', 'expected_unique_users', 'expected_item_count'] as const;

/** The project form's values as its fields hold them (numbers as typed). */
export type Form = Record<string, string | boolean>;
export const initial: Form = {
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

/** A project's current values, to edit. */
export function formOf(p: PlatformProject): Form {
  const settings = Object.entries(p.settings).map(([k, v]) => [k, typeof v === 'number' ? String(v) : v]);
  return { ...initial, ...Object.fromEntries(settings), name: p.name, key: p.key };
}

/** The body the server takes: numbers for the number fields. */
export function bodyOf(f: Form): Record<string, unknown> {
  const body: Record<string, unknown> = { ...f };
  for (const k of [...DECIMALS, ...COUNTS]) body[k] = Number(f[k]);
  return body;
}

/** Only the fields that differ from `before` (the key cannot change after creation). */
export function changes(f: Form, before: Form): Record<string, unknown> {
  const body = bodyOf(f);
  return Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'key' && f[k] !== before[k]));
}

/** SPEC §5 on the form (the server checks the same and is the authority). */
export function problems(f: Form): Record<string, string> {
  const p: Record<string, string> = {};
  if (!String(f.name).trim()) p.name = 'form.required';
  if (!String(f.content_language).trim()) p.content_language = 'form.required';
  if (!/^[a-z0-9][a-z0-9-]{1,38}[a-z0-9]$/.test(String(f.key))) p.key = 'form.keyFormat';
  for (const k of DECIMALS) if (!/^\d+(\.\d{1,7})?$/.test(String(f[k]))) p[k] = 'form.decimals';
  for (const k of COUNTS) if (!/^\d+$/.test(String(f[k])) || Number(f[k]) >= MAX_COUNT) p[k] = 'form.requestCount';
  return p;
}

/** The server's 422 messages (in the user's language) by field; anything else is shown in the message dialog. */
export function serverProblems(err: unknown): Record<string, string> {
  const byField: Record<string, string> = {};
  if (err instanceof ApiError && err.status === 422) for (const e of err.fieldErrors) if (e.field in initial) byField[e.field] = e.message;
  if (!Object.keys(byField).length) reportError(err);
  return byField;
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

interface Props {
  f: Form;
  setF: Dispatch<SetStateAction<Form>>;
  /** show the form's own problems (after a first Save) */
  touched: boolean;
  /** the server's messages by field, from the last Save */
  serverErrs: Record<string, string>;
  /** creation only: the key field (fixed afterwards) */
  withKey: boolean;
  /** above the fields (the model picker when creating) */
  head?: ReactNode;
  /** the buttons below the fields */
  actions: ReactNode;
  /** shown in place of the fields (nothing to publish yet) */
  instead?: ReactNode;
}

/** The fields of a platform project, with its live price: the create and the edit page. */
export default function ProjectForm({ f, setF, touched, serverErrs, withKey, head, actions, instead }: Props) {
  const { t } = useTranslation(NS);
  const [q, setQ] = useState<Quote | null>(null);
  const errs = problems(f);
  const set = (k: string) => (e: { target: { value: string } }) => setF((x) => ({ ...x, [k]: e.target.value }));
  const priceInput = useDebounced(JSON.stringify([f.subscription_type, f.billing_cycle, f.cpu_cores, f.memory_gb, f.gpu_gb, f.auto_scaling, f.expected_requests_per_month]), 250);

  useEffect(() => {
    const [subscription_type, billing_cycle, cpu, mem, gpu, auto, req] = JSON.parse(priceInput);
    if (problems({ ...initial, cpu_cores: cpu, memory_gb: mem, gpu_gb: gpu, expected_requests_per_month: req, key: 'abc' }).cpu_cores) return;
    quote({ subscription_type, billing_cycle, cpu_cores: Number(cpu), memory_gb: Number(mem), gpu_gb: Number(gpu), auto_scaling: auto, expected_requests_per_month: Number(req) }).then(setQ, () => undefined);
  }, [priceInput]);

  const field = (k: string, type: 'text' | 'number' = 'text', required = false) => {
    const problem = touched && errs[k] ? t(errs[k]) : serverErrs[k];
    return (
      <Grid size={{ xs: 12, sm: 6, md: 4 }} key={k}>
        <TextField
          fullWidth
          size="small"
          label={t(`form.${k}`)}
          value={f[k] as string}
          onChange={set(k)}
          required={required}
          slotProps={{ htmlInput: type === 'number' ? { inputMode: 'decimal', name: k } : { name: k } }}
          error={!!problem}
          helperText={problem || (k === 'key' ? t('form.keyHelp') : ' ')}
        />
      </Grid>
    );
  };

  const section = (title: string) => (
    <Grid size={12}>
      <Typography variant="subtitle2" color="text.secondary" sx={{ mt: 1 }}>
        {title}
      </Typography>
    </Grid>
  );

  return (
    <Box sx={{ display: 'flex', gap: 2, alignItems: 'flex-start', flexWrap: 'wrap' }}>
      <Paper variant="outlined" sx={{ p: 2, flex: 3, minWidth: 320 }}>
        {instead ?? (
          <Grid container spacing={2}>
            {head}
            {section(t('form.sections.about'))}
            {field('name', 'text', true)}
            {withKey && field('key', 'text', true)}
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
            <Grid size={12} sx={{ display: 'flex', gap: 1 }}>
              {actions}
            </Grid>
          </Grid>
        )}
      </Paper>
      <Box sx={{ flex: 1, minWidth: 280 }}>
        <PriceCard q={q} />
      </Box>
    </Box>
  );
}
