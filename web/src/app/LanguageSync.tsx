import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useMe } from '../api/me';
import { saveSettings } from '../features/account/api';
import { LANGUAGE_PENDING_KEY, languageSync, saveLanguage, storedLanguage } from '../i18n';
import { reloadPage } from '../lib/browser';

const LANGUAGE_SYNCED_KEY = 'mitate.lang.synced';

/** Keeps this browser's language and the profile's saved language one (issue 15): renders nothing. */
export default function LanguageSync() {
  const { data: me } = useMe();
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!me) return;
    const pending = localStorage.getItem(LANGUAGE_PENDING_KEY) === '1';
    // The saved language is applied once per person on a browser (the first time they are seen here); after
    // that this browser's choices are pushed by the switcher, never pulled back on every page.
    if (!pending && localStorage.getItem(LANGUAGE_SYNCED_KEY) === me.id) return;
    localStorage.setItem(LANGUAGE_SYNCED_KEY, me.id);
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
