import Box from '@mui/material/Box';
import Divider from '@mui/material/Divider';
import IconButton from '@mui/material/IconButton';
import ListItemIcon from '@mui/material/ListItemIcon';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import Chip from '@mui/material/Chip';
import { useColorScheme } from '@mui/material/styles';
import LogoutIcon from '@mui/icons-material/Logout';
import VerifiedUserIcon from '@mui/icons-material/VerifiedUserOutlined';
import MonitorHeartIcon from '@mui/icons-material/MonitorHeartOutlined';
import SettingsIcon from '@mui/icons-material/SettingsOutlined';
import { useEffect } from 'react';
import PersonOutlineIcon from '@mui/icons-material/PersonOutlined';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { Me } from '../api/types';
import MemberAvatar from '../components/MemberAvatar';
import { logout } from '../features/account/auth';
import { useProfile } from '../features/account/api';
import { setDisplaySettings } from '../lib/format';

export default function UserMenu({ me }: { me: Me | undefined }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const close = () => setAnchor(null);
  // The signed-in person's settings apply in this browser: dark theme, 12/24-hour clock, time-zone offset.
  const { data: profile } = useProfile({ silent: true });
  const { setMode } = useColorScheme();
  const settings = profile?.settings;
  useEffect(() => {
    if (!settings) return;
    setDisplaySettings({ clock24h: settings.clock_24h, tzOffsetMinutes: settings.tz_offset_minutes });
    setMode(settings.dark_theme ? 'dark' : 'light');
  }, [settings, setMode]);
  // The profile for everyone; the platform administrators' pages for them.
  const links = [
    { to: '/profile', Icon: PersonOutlineIcon, label: t('topbar.profile') },
    ...(profile?.platform_admin
      ? [
          { to: '/admin/identity', Icon: VerifiedUserIcon, label: t('adminIdentity.title') },
          { to: '/admin/operations', Icon: MonitorHeartIcon, label: t('pages.operations') },
          { to: '/admin/settings', Icon: SettingsIcon, label: t('pages.platformSettings') },
        ]
      : []),
  ];
  return (
    <>
      <Tooltip title={t('topbar.account')}>
        <IconButton onClick={(e) => setAnchor(e.currentTarget)} aria-label={t('topbar.account')} aria-haspopup="menu" sx={{ ml: 0.5 }}>
          <MemberAvatar person={me} size={30} />
        </IconButton>
      </Tooltip>
      <Menu
        anchorEl={anchor}
        open={anchor !== null}
        onClose={close}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
      >
        {me && (
          <Box sx={{ px: 2, py: 1, maxWidth: 280 }}>
            <Typography variant="subtitle2" noWrap>
              {me.name || `${me.first_name} ${me.last_name}`}
            </Typography>
            <Typography variant="body2" color="text.secondary" noWrap>
              {me.email}
            </Typography>
            <Chip size="small" variant="outlined" color="primary" label={t(`roles.${me.role}`, { defaultValue: me.role })} sx={{ mt: 0.5 }} />
            {profile?.platform_admin && <Chip size="small" variant="outlined" color="secondary" label={t('pages.platformAdmin')} sx={{ mt: 0.5, ml: 0.5 }} data-testid="platform-admin-chip" />}
          </Box>
        )}
        {me && <Divider />}
        {links.map(({ to, Icon, label }) => (
          <MenuItem
            key={to}
            onClick={() => {
              close();
              navigate(to);
            }}
          >
            <ListItemIcon>
              <Icon fontSize="small" />
            </ListItemIcon>
            {label}
          </MenuItem>
        ))}
        <MenuItem
          onClick={() => {
            close();
            void logout(queryClient);
          }}
        >
          <ListItemIcon>
            <LogoutIcon fontSize="small" />
          </ListItemIcon>
          {t('topbar.logout')}
        </MenuItem>
      </Menu>
    </>
  );
}
