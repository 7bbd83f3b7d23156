import AppBar from '@mui/material/AppBar';
import Box from '@mui/material/Box';
import IconButton from '@mui/material/IconButton';
import Toolbar from '@mui/material/Toolbar';
import useMediaQuery from '@mui/material/useMediaQuery';
import MenuIcon from '@mui/icons-material/Menu';
import { useTheme } from '@mui/material/styles';
import { Suspense, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, Outlet } from 'react-router';
import { useMe } from '../api/me';
import PageLoading from '../components/PageLoading';
import Breadcrumbs from './Breadcrumbs';
import LanguageSwitcher from './LanguageSwitcher';
import LanguageSync from './LanguageSync';
import Logo from './Logo';
import NavDrawer, { DRAWER_WIDTH } from './NavDrawer';
import RegistrationReminder from './RegistrationReminder';
import ServiceStatusChip from './ServiceStatusChip';
import UserMenu from './UserMenu';

/** SPEC §2 Shell: top bar (logo, language, avatar menu), 256 px drawer, breadcrumbs, the page. */
export default function Shell({ children }: { children?: ReactNode }) {
  const { t } = useTranslation();
  const theme = useTheme();
  const narrow = useMediaQuery(theme.breakpoints.down('md'), { noSsr: true });
  const [mobileOpen, setMobileOpen] = useState(false);
  const { data: me } = useMe();
  return (
    <Box sx={{ display: 'flex', minHeight: '100vh' }}>
      <LanguageSync />
      <AppBar position="fixed" elevation={0} sx={{ zIndex: (th) => th.zIndex.drawer + 1, bgcolor: 'primary.dark' }}>
        <Toolbar variant="dense" sx={{ gap: 1 }}>
          {narrow && (
            <IconButton color="inherit" edge="start" onClick={() => setMobileOpen((o) => !o)} aria-label={t('nav.open')}>
              <MenuIcon />
            </IconButton>
          )}
          <Box component={RouterLink} to="/" sx={{ textDecoration: 'none', display: 'flex' }}>
            <Logo />
          </Box>
          <Box sx={{ flex: 1 }} />
          <ServiceStatusChip />
          <LanguageSwitcher />
          <UserMenu me={me} />
        </Toolbar>
      </AppBar>
      <NavDrawer me={me} temporary={narrow} mobileOpen={mobileOpen} onMobileClose={() => setMobileOpen(false)} />
      <Box
        component="main"
        sx={{ flex: 1, minWidth: 0, px: { xs: 2, md: 3 }, pb: 4, width: { md: `calc(100% - ${DRAWER_WIDTH}px)` } }}
      >
        <Toolbar variant="dense" />
        <Box sx={{ pt: 1.5 }}>
          <Breadcrumbs />
          <RegistrationReminder />
          <Suspense fallback={<PageLoading />}>{children ?? <Outlet />}</Suspense>
        </Box>
      </Box>
    </Box>
  );
}
