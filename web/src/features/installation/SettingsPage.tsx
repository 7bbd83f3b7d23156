import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import FormControlLabel from '@mui/material/FormControlLabel';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { ApiError } from '../../api/errors';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { reportError } from '../../api/client';
import { showSnackbar } from '../../lib/feedback';
import { useProfile } from '../account/api';
import { installationKey, saveInstallationSettings, useInstallationSettings, type BankAccount, type InstallationSettings } from './api';

const FIELDS = ['bank_name', 'bank_code', 'branch_name', 'branch_code', 'account_number', 'account_holder'] as const;
const LABEL: Record<(typeof FIELDS)[number], string> = {
  bank_name: 'bank.bankName',
  bank_code: 'bank.bankCode',
  branch_name: 'bank.branchName',
  branch_code: 'bank.branchCode',
  account_number: 'bank.accountNumber',
  account_holder: 'bank.accountHolder',
};
const EMPTY: BankAccount = { bank_name: '', bank_code: '', branch_name: '', branch_code: '', account_type: 'organisation', account_number: '', account_holder: '' };

function Source({ source }: { source: InstallationSettings['bank_account_source'] }) {
  const { t } = useTranslation('installation');
  return <Chip size="small" variant="outlined" label={t(`source.${source ?? 'none'}`)} />;
}

/** /admin/settings: platform administrators set the bank account and switch the hosted-API review (issue 33). */
export default function SettingsPage() {
  const { t } = useTranslation('installation');
  usePageTitle(t('title'));
  const qc = useQueryClient();
  const profile = useProfile();
  const admin = !!profile.data?.platform_admin;
  const settings = useInstallationSettings(admin);
  const [bank, setBank] = useState<BankAccount>(EMPTY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const current = settings.data;
  useEffect(() => {
    if (current) setBank(current.bank_account ?? EMPTY);
  }, [current]);
  if (profile.data && !admin) return <Alert severity="warning">{t('notAllowed')}</Alert>;
  if (!current) return <PageLoading />;

  const save = async (body: Parameters<typeof saveInstallationSettings>[0]) => {
    setBusy(true);
    try {
      const next = await saveInstallationSettings(body);
      qc.setQueryData([...installationKey, 'settings'], next);
      await qc.invalidateQueries({ queryKey: ['platform', 'admin'] });
      setErrors({});
      showSnackbar(t('saved'));
    } catch (err) {
      if (err instanceof ApiError && err.status === 422 && err.fieldErrors.length) setErrors(Object.fromEntries(err.fieldErrors.map((f) => [f.field, f.message])));
      else reportError(err);
    } finally {
      setBusy(false);
    }
  };
  const submitBank = (e: FormEvent) => {
    e.preventDefault();
    void save({ bank_account: bank });
  };
  const { administrators } = current;
  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      {profile.data?.platform_admin_reason === 'first_account' && (
        <Alert severity="info" sx={{ mb: 2 }} data-testid="first-account-admin">
          {t('firstAccount')}
        </Alert>
      )}
      {administrators.environment.length > 0 && (
        <Alert severity="info" sx={{ mb: 2 }}>
          {t('envAdmins', { list: administrators.environment.join(', ') })}
        </Alert>
      )}
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', mb: 2 }}>
        <Button component={RouterLink} to="/admin/identity" variant="outlined" size="small">
          {t('links.identity')}
        </Button>
        <Button component={RouterLink} to="/admin/platform" variant="outlined" size="small">
          {t('links.platform')}
        </Button>
        <Button component={RouterLink} to="/admin/billing" variant="outlined" size="small">
          {t('links.billing')}
        </Button>
      </Box>
      <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1 }}>
          <Typography variant="h6" component="h2">
            {t('review.title')}
          </Typography>
          <Source source={current.platform_review_source} />
        </Box>
        <FormControlLabel
          control={<Switch checked={current.platform_review} disabled={busy} onChange={(_, on) => void save({ platform_review: on })} />}
          label={t('review.label')}
        />
        <Typography color="text.secondary" data-testid="review-effect">
          {t(current.platform_review ? 'review.on' : 'review.off')}
        </Typography>
      </Paper>
      <Paper variant="outlined" sx={{ p: 2 }} component="form" onSubmit={submitBank} noValidate aria-labelledby="bank-title">
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1 }}>
          <Typography id="bank-title" variant="h6" component="h2">
            {t('bank.title')}
          </Typography>
          <Source source={current.bank_account_source} />
        </Box>
        <Typography color="text.secondary" sx={{ mb: 2 }}>
          {t('bank.intro')}
        </Typography>
        {!current.bank_account && (
          <Alert severity="warning" sx={{ mb: 2 }}>
            {t('bank.missing')}
          </Alert>
        )}
        <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, gap: 2, maxWidth: 720 }}>
          {FIELDS.map((f) => (
            <TextField
              key={f}
              label={t(LABEL[f])}
              value={bank[f]}
              required
              onChange={(e) => setBank({ ...bank, [f]: e.target.value })}
              error={!!errors[f]}
              helperText={errors[f]}
              slotProps={{ htmlInput: { maxLength: 200, ...(f.endsWith('_code') || f === 'account_number' ? { inputMode: 'numeric' } : {}) } }}
            />
          ))}
          <TextField select label={t('bank.accountType')} value={bank.account_type} onChange={(e) => setBank({ ...bank, account_type: e.target.value as BankAccount['account_type'] })}>
            {(['organisation', 'individual'] as const).map((v) => (
              <MenuItem key={v} value={v}>
                {t(`bank.accountTypes.${v}`)}
              </MenuItem>
            ))}
          </TextField>
        </Box>
        <Box sx={{ display: 'flex', gap: 1, mt: 2, alignItems: 'center', flexWrap: 'wrap' }}>
          <Button type="submit" variant="contained" disabled={busy}>
            {t('bank.save')}
          </Button>
          {current.bank_account_source === 'settings' && (
            <Button disabled={busy} onClick={() => void save({ bank_account: null })} title={t('bank.forgetHint')}>
              {t('bank.forget')}
            </Button>
          )}
        </Box>
      </Paper>
    </>
  );
}
