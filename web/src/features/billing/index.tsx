import i18n from 'i18next';
import type { AreaProps } from '../../app/area';
import AdminPage from './AdminPage';
import { NS } from './common';
import DetailsPage from './DetailsPage';
import en from './i18n/en.json';
import ja from './i18n/ja.json';
import ListPage from './ListPage';
import PaymentPage from './PaymentPage';
import WalletPage from './WalletPage';

i18n.addResourceBundle('en', NS, en, true, true);
i18n.addResourceBundle('ja', NS, ja, true, true);

/** Invoices and payments (SPEC §1, §2 'Other': invoices list, invoice detail, payment; §3 'Invoice', 'Bank account'). */
export default function BillingArea({ page }: AreaProps) {
  if (page === 'details') return <DetailsPage />;
  if (page === 'payment') return <PaymentPage />;
  if (page === 'wallet') return <WalletPage />;
  if (page === 'admin') return <AdminPage />;
  return <ListPage />;
}
