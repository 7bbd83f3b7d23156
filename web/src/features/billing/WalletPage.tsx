import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCanWrite } from '../../api/me';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { formatDateTime } from '../../lib/format';
import { billingKey, minorDigits, money, reportTopup, useWallet } from './api';
import BankDetails from './BankDetails';
import { IdentityGate, NS, TableCard, useConfirm } from './common';

/** SPEC §1 wallet: a prepaid balance, topped up by bank transfer and confirmed by a platform administrator. */
export default function WalletPage() {
  const { t, i18n } = useTranslation(NS);
  usePageTitle(t('wallet.title'));
  const qc = useQueryClient();
  const canWrite = useCanWrite();
  const w = useWallet();
  const { ask, dialog } = useConfirm();
  const [amount, setAmount] = useState('');
  if (!w.data) return <PageLoading />;
  const wallet = w.data;
  const m = (v: number) => money(v, wallet.currency, i18n.language);
  // the person types major units (yen, euros); the server takes integer minor units
  const digits = minorDigits(wallet.currency);
  const typed = Number(amount);
  const valid = amount.trim() !== '' && Number.isFinite(typed) && typed >= 1 && Math.abs(typed * 10 ** digits - Math.round(typed * 10 ** digits)) < 1e-9;
  const minor = valid ? Math.round(typed * 10 ** digits) : 0;
  const blocked = wallet.identity !== 'done';
  return (
    <>
      <PageHeader title={t('wallet.title')} subtitle={t('wallet.subtitle')} />
      <IdentityGate identity={wallet.identity} />
      <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
        <Typography variant="overline" color="text.secondary">
          {t('wallet.balance')}
        </Typography>
        <Typography variant="h4" component="p" data-testid="wallet-balance">
          {m(wallet.balance)}
        </Typography>
      </Paper>
      {canWrite && (
        <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
          <Typography variant="h6" component="h2" sx={{ mb: 2 }}>
            {t('wallet.topUp')}
          </Typography>
          <TextField
            size="small"
            label={t('wallet.amount', { currency: wallet.currency })}
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
            error={amount !== '' && !valid}
            helperText={amount !== '' && !valid ? t('wallet.amountBad') : t('wallet.amountHelp')}
            slotProps={{ htmlInput: { inputMode: 'decimal' } }}
            sx={{ mb: 2, width: 260 }}
          />
          <BankDetails reference={wallet.transfer_reference} account={wallet.bank_account ?? null} amount={valid ? m(minor) : '—'} />
          <Box sx={{ display: 'flex', justifyContent: 'flex-end', mt: 2 }}>
            <Button
              variant="contained"
              disabled={!valid || blocked || !wallet.bank_account}
              onClick={() =>
                ask({
                  title: t('pay.transferCompleted'),
                  text: t('wallet.confirmTopup', { amount: m(minor), reference: wallet.transfer_reference }),
                  done: t('wallet.topupDone'),
                  run: () =>
                    reportTopup(minor).then(async () => {
                      setAmount('');
                      await qc.invalidateQueries({ queryKey: billingKey });
                    }),
                })
              }
            >
              {t('pay.transferCompleted')}
            </Button>
          </Box>
        </Paper>
      )}
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, gap: 2 }}>
        <TableCard title={t('wallet.topups')} empty={!wallet.topups.length && t('wallet.none')}>
          <TableBody>
            {wallet.topups.map((x) => (
              <TableRow key={x.id} data-topup={x.state}>
                <TableCell>{formatDateTime(x.reported_at)}</TableCell>
                <TableCell align="right">{m(x.amount)}</TableCell>
                <TableCell align="right">
                  <Chip size="small" color={x.state === 'cleared' ? 'success' : x.state === 'rejected' ? 'error' : 'warning'} label={t(`wallet.topupState.${x.state}`)} />
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </TableCard>
        <TableCard title={t('wallet.entries')} empty={!wallet.entries.length && t('wallet.none')}>
          <TableBody>
            {wallet.entries.map((e, i) => (
              <TableRow key={i}>
                <TableCell>{formatDateTime(e.at)}</TableCell>
                <TableCell>{t(`history.${e.kind}`, { defaultValue: e.kind })}</TableCell>
                <TableCell align="right">{m(e.amount)}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </TableCard>
      </Box>
      {dialog}
    </>
  );
}
