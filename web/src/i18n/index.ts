import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import en from './en.json';
import ja from './ja.json';

/** The stored language values of SPEC §9. */
export type AppLanguage = 'en-gb' | 'ja-jp';
export type UiLanguage = 'en' | 'ja';

export const LANGUAGE_KEY = 'mitate.lang';

export function storedLanguage(): AppLanguage {
  let v: string | null = null;
  try {
    v = localStorage.getItem(LANGUAGE_KEY);
  } catch {
    /* storage may be blocked */
  }
  if (v === 'en-gb' || v === 'ja-jp') return v;
  const nav = typeof navigator !== 'undefined' ? navigator.language.toLowerCase() : '';
  return nav.startsWith('ja') ? 'ja-jp' : 'en-gb';
}

export const uiLanguageOf = (lang: AppLanguage): UiLanguage => (lang === 'ja-jp' ? 'ja' : 'en');

/** The language sent as Accept-Language on every API call. */
export const currentLanguage = (): UiLanguage => (i18n.language === 'ja' ? 'ja' : 'en');

/** Saves the choice; the caller reloads the page (SPEC §2 Shell). */
export function saveLanguage(lang: AppLanguage): void {
  localStorage.setItem(LANGUAGE_KEY, lang);
}

function applyHtmlLang(lng: string) {
  if (typeof document !== 'undefined') document.documentElement.lang = lng === 'ja' ? 'ja' : 'en';
}

void i18n.use(initReactI18next).init({
  resources: { en: { translation: en }, ja: { translation: ja } },
  lng: uiLanguageOf(storedLanguage()),
  fallbackLng: 'en',
  interpolation: { escapeValue: false },
  returnNull: false,
  initAsync: false,
});
applyHtmlLang(i18n.language);
i18n.on('languageChanged', applyHtmlLang);

export default i18n;
