import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import FormControlLabel from '@mui/material/FormControlLabel';
import Paper from '@mui/material/Paper';
import Radio from '@mui/material/Radio';
import RadioGroup from '@mui/material/RadioGroup';
import Step from '@mui/material/Step';
import StepLabel from '@mui/material/StepLabel';
import Stepper from '@mui/material/Stepper';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { billingKey, money, payByWallet, transferCompleted, useInvoice, usePaymentInfo } from './api';
import BankDetails from './BankDetails';
import { IdentityGate, invoicePath, NS, useConfirm } from './common';
import InvoiceLines from './InvoiceLines';

/** SPEC §2 payment (steps: total amount → payment method; bank transfer or wallet), §4 'transfer completed'. */
export default function PaymentPage() {
  const { invoice_id = '' } = useParams();
  const { t, i18n } = useTranslation(NS);
  usePageTitle(t('pay.title'));
  const navigate = useNavigate();
  const qc = useQueryClient();
  const q = useInvoice(invoice_id);
  const info = usePaymentInfo();
  const { ask, dialog } = useConfirm();
  const [step, setStep] = useState(0);
  const [method, setMethod] = useState<'bank_transfer' | 'wallet'>('bank_transfer');
  if (!q.data || !info.data) return <PageLoading />;
  const inv = q.data;
  const pi = info.data;
  const m = (v: number) => money(v, inv.currency, i18n.language);
  const payable = inv.state === 'billed' || inv.state === 'overdue';
  const blocked = pi.identity !== 'done';
  const enough = pi.wallet.balance >= inv.amount_due;
  const done = async () => {
    await qc.invalidateQueries({ queryKey: billingKey });
    navigate(invoicePath(inv.id));
  };
  return (
    <>
      <PageHeader title={`${t('pay.title')}: ${inv.number}`} subtitle={t('pay.totalIntro', { number: inv.number, project: inv.project_name, from: inv.bill_from, to: inv.bill_to })} />
      <IdentityGate identity={pi.identity} />
      {!payable && (
        <Alert severity="info" sx={{ mb: 2 }}>
          {t('pay.notPayable')}
        </Alert>
      )}
      <Stepper activeStep={step} sx={{ mb: 2, maxWidth: 520 }}>
        <Step>
          <StepLabel>{t('pay.steps.total')}</StepLabel>
        </Step>
        <Step>
          <StepLabel>{t('pay.steps.method')}</StepLabel>
        </Step>
      </Stepper>
      <Paper variant="outlined" sx={{ p: 2 }}>
        {step === 0 ? (
          <>
            <Typography variant="overline" color="text.secondary">
              {t('pay.amountDue')}
            </Typography>
            <Typography variant="h4" component="p" sx={{ mb: 2 }} data-testid="pay-total">
              {m(inv.amount_due)}
            </Typography>
            <InvoiceLines invoice={inv} />
            <Box sx={{ display: 'flex', justifyContent: 'flex-end', mt: 2 }}>
              <Button variant="contained" onClick={() => setStep(1)} disabled={!payable}>
                {t('pay.next')}
              </Button>
            </Box>
          </>
        ) : (
          <>
            <RadioGroup row value={method} onChange={(e) => setMethod(e.target.value as 'bank_transfer' | 'wallet')} sx={{ mb: 2 }} aria-label={t('pay.steps.method')}>
              <FormControlLabel value="bank_transfer" control={<Radio />} label={t('pay.bank')} />
              <FormControlLabel value="wallet" control={<Radio />} label={`${t('pay.wallet')} (${m(pi.wallet.balance)})`} />
            </RadioGroup>
            {method === 'bank_transfer' ? (
              <BankDetails reference={pi.transfer_reference} account={pi.bank_account ?? null} amount={m(inv.amount_due)} />
            ) : (
              <Box data-testid="wallet-method">
                <Typography variant="overline" color="text.secondary">
                  {t('pay.walletBalance')}
                </Typography>
                <Typography variant="h5" component="p" sx={{ mb: 1 }}>
                  {m(pi.wallet.balance)}
                </Typography>
                <Alert severity={enough ? 'success' : 'warning'} action={!enough && <Button component={RouterLink} to="/wallet" color="inherit" size="small">{t('pay.topUp')}</Button>}>
                  {enough ? t('pay.walletEnough') : t('pay.walletShort')}
                </Alert>
              </Box>
            )}
            <Box sx={{ display: 'flex', justifyContent: 'space-between', mt: 2 }}>
              <Button onClick={() => setStep(0)}>{t('pay.back')}</Button>
              {method === 'bank_transfer' ? (
                <Button
                  variant="contained"
                  disabled={!payable || blocked || !pi.bank_account}
                  onClick={() =>
                    ask({
                      title: t('pay.transferCompleted'),
                      text: t('pay.confirmTransfer', { amount: m(inv.amount_due), reference: pi.transfer_reference }),
                      done: t('pay.transferDone'),
                      run: () => transferCompleted(inv.id).then(done),
                    })
                  }
                >
                  {t('pay.transferCompleted')}
                </Button>
              ) : (
                <Button
                  variant="contained"
                  disabled={!payable || blocked || !enough}
                  onClick={() => ask({ title: t('pay.payFromWallet'), text: t('pay.confirmWallet', { amount: m(inv.amount_due) }), done: t('pay.walletDone'), run: () => payByWallet(inv.id).then(done) })}
                >
                  {t('pay.payFromWallet')}
                </Button>
              )}
            </Box>
          </>
        )}
      </Paper>
      {dialog}
    </>
  );
}
