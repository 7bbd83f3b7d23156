import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useMe } from '../api/me';
import { saveSettings } from '../features/account/api';
import { LANGUAGE_PENDING_KEY, languageSync, saveLanguage, storedLanguage } from '../i18n';
import { reloadPage } from '../lib/browser';

/** Keeps this browser's language and the profile's saved language one (issue 15): renders nothing. */
export default function LanguageSync() {
  const { data: me } = useMe();
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!me) return;
    const pending = localStorage.getItem(LANGUAGE_PENDING_KEY) === '1';
    const action = languageSync(storedLanguage(), me.language, pending);
    localStorage.removeItem(LANGUAGE_PENDING_KEY);
    if (action.push) {
      void saveSettings({ language: action.push }, { quiet: true })
        .then(() => queryClient.invalidateQueries({ queryKey: ['users', 'me'] }))
        .catch(() => undefined);
    } else if (action.apply) {
      saveLanguage(action.apply);
      reloadPage();
    }
  }, [me, queryClient]);
  return null;
}
