import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import { useTranslation } from 'react-i18next';
import InfoGrid from '../../components/InfoGrid';
import type { BankAccount } from './api';
import { NS } from './common';

/** SPEC §3 'Bank account': the organisation's transfer reference and the platform's account from the settings. */
export default function BankDetails({ reference, account, amount }: { reference: string; account: BankAccount | null; amount: string }) {
  const { t } = useTranslation(NS);
  if (!account) return <Alert severity="warning">{t('pay.noBank')}</Alert>;
  return (
    <Box data-testid="bank-details">
      <Alert severity="info" sx={{ mb: 2 }}>
        {t('pay.bankIntro')}
      </Alert>
      <InfoGrid
        items={[
          { label: t('pay.amountDue'), value: <strong>{amount}</strong> },
          { label: t('pay.reference'), value: <strong data-testid="transfer-reference">{reference}</strong> },
          { label: t('pay.bankName'), value: account.bank_name },
          { label: t('pay.bankCode'), value: account.bank_code },
          { label: t('pay.branchName'), value: account.branch_name },
          { label: t('pay.branchCode'), value: account.branch_code },
          { label: t('pay.accountType'), value: t(`pay.accountTypes.${account.account_type}`) },
          { label: t('pay.accountNumber'), value: account.account_number },
          { label: t('pay.accountHolder'), value: account.account_holder },
        ]}
      />
    </Box>
  );
}
