import Button from '@mui/material/Button';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import CheckIcon from '@mui/icons-material/Check';
import TranslateIcon from '@mui/icons-material/Translate';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { getSession } from '../api/session';
import { saveSettings } from '../features/account/api';
import { LANGUAGE_PENDING_KEY, saveLanguage, storedLanguage, type AppLanguage } from '../i18n';
import { reloadPage } from '../lib/browser';

const LANGUAGES: { value: AppLanguage; label: string }[] = [
  { value: 'en-gb', label: 'English' },
  { value: 'ja-jp', label: '日本語' },
];

/** SPEC §2: English / Japanese; the choice is saved and the page reloads. */
export default function LanguageSwitcher({ color = 'inherit' }: { color?: 'inherit' | 'primary' }) {
  const { t } = useTranslation();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const current = storedLanguage();
  const choose = async (lang: AppLanguage) => {
    setAnchor(null);
    if (lang === current && localStorage.getItem('mitate.lang') === lang) return;
    saveLanguage(lang);
    // Signed in: the profile keeps it for every browser. Signed out: saved at the next sign-in (LanguageSync).
    if (getSession()) await saveSettings({ language: lang }, { quiet: true }).catch(() => localStorage.setItem(LANGUAGE_PENDING_KEY, '1'));
    else localStorage.setItem(LANGUAGE_PENDING_KEY, '1');
    reloadPage();
  };
  return (
    <>
      <Button
        color={color}
        startIcon={<TranslateIcon />}
        onClick={(e) => setAnchor(e.currentTarget)}
        aria-haspopup="menu"
        aria-label={t('topbar.language')}
        sx={{ fontWeight: 500 }}
      >
        {LANGUAGES.find((l) => l.value === current)?.label}
      </Button>
      <Menu anchorEl={anchor} open={anchor !== null} onClose={() => setAnchor(null)}>
        {LANGUAGES.map((l) => (
          <MenuItem key={l.value} onClick={() => void choose(l.value)} selected={l.value === current} lang={l.value === 'ja-jp' ? 'ja' : 'en'}>
            <ListItemIcon>{l.value === current && <CheckIcon fontSize="small" />}</ListItemIcon>
            <ListItemText>{l.label}</ListItemText>
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}
