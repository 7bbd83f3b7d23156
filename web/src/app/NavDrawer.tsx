import Box from '@mui/material/Box';
import Divider from '@mui/material/Divider';
import Drawer from '@mui/material/Drawer';
import List from '@mui/material/List';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Toolbar from '@mui/material/Toolbar';
import AutoGraphIcon from '@mui/icons-material/AutoGraph';
import BiotechIcon from '@mui/icons-material/Biotech';
import InsightsIcon from '@mui/icons-material/Insights';
import ManageAccountsIcon from '@mui/icons-material/ManageAccounts';
import ModelTrainingIcon from '@mui/icons-material/ModelTraining';
import OnlinePredictionIcon from '@mui/icons-material/OnlinePrediction';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import QueryStatsIcon from '@mui/icons-material/QueryStats';
import ScienceIcon from '@mui/icons-material/Science';
import StorageIcon from '@mui/icons-material/Storage';
import TuneIcon from '@mui/icons-material/Tune';
import DashboardCustomizeIcon from '@mui/icons-material/DashboardCustomize';
import CloudQueueIcon from '@mui/icons-material/CloudQueue';
import ReceiptLongIcon from '@mui/icons-material/ReceiptLong';
import HistoryIcon from '@mui/icons-material/History';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useLocation } from 'react-router';
import type { Me } from '../api/types';

/** SPEC §9: drawer width 256. */
export const DRAWER_WIDTH = 256;

interface NavItem {
  key: string;
  label: string;
  path: string;
  icon: ReactNode;
}

export const AREA_ITEMS: { key: string; labelKey: string; path: string; icon: ReactNode }[] = [
  { key: 'dataset', labelKey: 'nav.dataset', path: '/dataset', icon: <StorageIcon /> },
  { key: 'visualization', labelKey: 'nav.visualization', path: '/visualization', icon: <InsightsIcon /> },
  { key: 'preprocessing', labelKey: 'nav.preprocessing', path: '/pre-processing', icon: <TuneIcon /> },
  { key: 'training', labelKey: 'nav.training', path: '/training', icon: <ModelTrainingIcon /> },
  { key: 'prediction', labelKey: 'nav.prediction', path: '/prediction', icon: <OnlinePredictionIcon /> },
  { key: 'optimization', labelKey: 'nav.optimization', path: '/optimization', icon: <AutoGraphIcon /> },
  { key: 'optimalDesign', labelKey: 'nav.optimalDesign', path: '/optimal-design', icon: <ScienceIcon /> },
  { key: 'statistics', labelKey: 'nav.statistics', path: '/statistical-analysis', icon: <QueryStatsIcon /> },
];

function isActive(pathname: string, path: string) {
  return pathname === path || pathname.startsWith(`${path}/`);
}

function DrawerContent({ me, onNavigate }: { me: Me | undefined; onNavigate?: () => void }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const items: NavItem[] = AREA_ITEMS.map((i) => ({ key: i.key, label: t(i.labelKey), path: i.path, icon: i.icon }));
  const visualizer = me?.links?.visualizer_url ?? null;
  const testSite = me?.links?.show_test_site && me.links.test_site_url ? me.links.test_site_url : null;
  const external = (href: string, label: string, icon: ReactNode, key: string) => (
    <ListItemButton
      key={key}
      component="a"
      href={href}
      target="_blank"
      rel="noopener noreferrer"
      onClick={onNavigate}
      sx={{ mb: 0.25 }}
      data-nav={key}
    >
      <ListItemIcon sx={{ minWidth: 36 }}>{icon}</ListItemIcon>
      <ListItemText primary={label} slotProps={{ primary: { variant: 'body2', sx: { fontWeight: 500 } } }} />
      <OpenInNewIcon sx={{ fontSize: 16, color: 'text.secondary' }} aria-label={t('nav.opensNewTab')} />
    </ListItemButton>
  );
  const internal = (item: NavItem) => (
    <ListItemButton
      key={item.key}
      component={RouterLink}
      to={item.path}
      selected={isActive(pathname, item.path)}
      onClick={onNavigate}
      sx={{ mb: 0.25 }}
      data-nav={item.key}
    >
      <ListItemIcon sx={{ minWidth: 36 }}>{item.icon}</ListItemIcon>
      <ListItemText primary={item.label} slotProps={{ primary: { variant: 'body2', sx: { fontWeight: 500 } } }} />
    </ListItemButton>
  );
  return (
    <Box component="nav" aria-label={t('nav.label')} sx={{ overflowY: 'auto', px: 1, py: 1 }}>
      <List dense disablePadding>
        {items.map(internal)}
        {visualizer && external(visualizer, t('nav.visualizer'), <DashboardCustomizeIcon />, 'visualizer')}
      </List>
      <Divider sx={{ my: 1 }} />
      <List dense disablePadding>
        {internal({ key: 'platform', label: t('nav.platform'), path: '/platform', icon: <CloudQueueIcon /> })}
        {internal({ key: 'invoices', label: t('nav.invoices'), path: '/invoices', icon: <ReceiptLongIcon /> })}
        {internal({ key: 'users', label: t('nav.users'), path: '/users', icon: <ManageAccountsIcon /> })}
        {(me?.role === 'owner' || me?.role === 'admin') && internal({ key: 'audit', label: t('nav.audit'), path: '/audit', icon: <HistoryIcon /> })}
        {testSite && external(testSite, t('nav.testSite'), <BiotechIcon />, 'testSite')}
      </List>
    </Box>
  );
}

export default function NavDrawer({
  me,
  mobileOpen,
  onMobileClose,
  temporary,
}: {
  me: Me | undefined;
  mobileOpen: boolean;
  onMobileClose: () => void;
  temporary: boolean;
}) {
  const paper = { width: DRAWER_WIDTH, boxSizing: 'border-box' as const };
  if (temporary) {
    return (
      <Drawer
        variant="temporary"
        open={mobileOpen}
        onClose={onMobileClose}
        ModalProps={{ keepMounted: true }}
        slotProps={{ paper: { style: paper, 'data-testid': 'nav-drawer' } as object }}
      >
        <Toolbar variant="dense" />
        <DrawerContent me={me} onNavigate={onMobileClose} />
      </Drawer>
    );
  }
  return (
    <Drawer
      variant="permanent"
      sx={{ width: DRAWER_WIDTH, flexShrink: 0 }}
      slotProps={{ paper: { style: paper, 'data-testid': 'nav-drawer' } as object }}
    >
      <Toolbar variant="dense" />
      <DrawerContent me={me} />
    </Drawer>
  );
}
