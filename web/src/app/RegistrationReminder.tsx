import IconButton from '@mui/material/IconButton';
import CloseIcon from '@mui/icons-material/Close';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import LinkAlert from '../components/LinkAlert';
import { useProfile } from '../features/account/api';

const DISMISSED_KEY = 'mitate.registrationReminder.dismissed';
/** Pages that already lead to the form themselves. */
const OWN_PROMPT = ['/complete-registration', '/profile'];

/** Leads a new person to /complete-registration from any page until it is done; closing it hides it for this tab. */
export default function RegistrationReminder() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const { data: profile } = useProfile({ silent: true });
  const [dismissed, setDismissed] = useState(() => sessionStorage.getItem(DISMISSED_KEY) === '1');
  if (!profile || profile.registration_complete || dismissed || OWN_PROMPT.some((p) => pathname.startsWith(p))) return null;
  return (
    <LinkAlert
      severity="info"
      sx={{ mb: 1.5 }}
      to="/complete-registration"
      linkLabel={t('profile.completeNow')}
      extra={
        <IconButton
            color="inherit"
            size="small"
            aria-label={t('common.close')}
            onClick={() => {
              sessionStorage.setItem(DISMISSED_KEY, '1');
              setDismissed(true);
            }}
          >
            <CloseIcon fontSize="small" />
          </IconButton>
      }
    >
      {t('profile.incomplete')}
    </LinkAlert>
  );
}
