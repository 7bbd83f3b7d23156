import Box from '@mui/material/Box';
import FormControlLabel from '@mui/material/FormControlLabel';
import MenuItem from '@mui/material/MenuItem';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useColorScheme } from '@mui/material/styles';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isOneOf } from '../../api/types';
import { isAppLanguage, saveLanguage, storedLanguage, type AppLanguage } from '../../i18n';
import { reloadPage } from '../../lib/browser';
import { formatDateTime, formatOffset, setDisplaySettings } from '../../lib/format';
import { saveSettings, type Profile, type Settings, type SettingsChange } from '../account/api';
import { CURRENCIES } from '../account/SetupForm';

/** Whole and the usual fractional offsets from UTC-12:00 to UTC+14:00. */
export const OFFSETS: number[] = (() => {
  const out: number[] = [];
  for (let m = -720; m <= 840; m += 30) out.push(m);
  for (const extra of [345, 525, 765]) out.push(extra);
  return out.sort((a, b) => a - b);
})();

/** Applies the settings in this browser at once: theme, clock and offset (language reloads the page). */
export function applySettings(s: Settings, setMode?: (m: 'light' | 'dark') => void) {
  setDisplaySettings({ clock24h: s.clock_24h, tzOffsetMinutes: s.tz_offset_minutes });
  setMode?.(s.dark_theme ? 'dark' : 'light');
}

export default function SettingsTab({ profile }: { profile: Profile }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const { setMode } = useColorScheme();
  // The language shown is the one this browser uses (the top bar's switcher keeps it locally).
  const [s, setS] = useState<Settings>({ ...profile.settings, language: storedLanguage() });
  const [busy, setBusy] = useState(false);

  const change = async (patch: SettingsChange) => {
    const next = { ...s, ...patch };
    setS(next);
    applySettings(next, setMode);
    setBusy(true);
    try {
      const saved = await saveSettings(patch);
      queryClient.setQueryData(['account', 'profile'], (p: Profile | undefined) => (p ? { ...p, settings: { ...p.settings, ...patch } } : p));
      if (patch.language && patch.language !== storedLanguage()) {
        saveLanguage(saved.language as AppLanguage);
        reloadPage();
      }
    } catch {
      setS(s);
      applySettings(s, setMode);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2.5, maxWidth: 480 }}>
      <TextField select label={t('settings.language')} value={s.language} onChange={(e) => isAppLanguage(e.target.value) && void change({ language: e.target.value })} disabled={busy}>
        <MenuItem value="en-gb">English</MenuItem>
        <MenuItem value="ja-jp">日本語</MenuItem>
      </TextField>
      <TextField select label={t('settings.currency')} value={s.currency} onChange={(e) => isOneOf(CURRENCIES, e.target.value) && void change({ currency: e.target.value })} disabled={busy}>
        {CURRENCIES.map((c) => (
          <MenuItem key={c} value={c}>
            {c}
          </MenuItem>
        ))}
      </TextField>
      <FormControlLabel control={<Switch checked={s.dark_theme} onChange={(e) => void change({ dark_theme: e.target.checked })} />} label={t('settings.darkTheme')} />
      <FormControlLabel control={<Switch checked={s.clock_24h} onChange={(e) => void change({ clock_24h: e.target.checked })} />} label={t('settings.clock24h')} />
      <TextField
        select
        label={t('settings.tzOffset')}
        value={s.tz_offset_minutes}
        onChange={(e) => void change({ tz_offset_minutes: Number(e.target.value) })}
        helperText={t('settings.tzHint')}
        disabled={busy}
      >
        {OFFSETS.map((m) => (
          <MenuItem key={m} value={m}>
            {formatOffset(m)}
          </MenuItem>
        ))}
      </TextField>
      <Typography variant="body2" color="text.secondary" data-testid="settings-preview">
        {t('settings.preview', { date: formatDateTime(new Date()) })}
      </Typography>
    </Box>
  );
}
