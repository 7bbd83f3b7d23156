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

/** Set when a person picks a language while signed out: the next sign-in saves it to their profile. */
export const LANGUAGE_PENDING_KEY = 'mitate.lang.pending';

export const isAppLanguage = (v: unknown): v is AppLanguage => v === 'en-gb' || v === 'ja-jp';

/**
 * Pure: what the signed-in app does about the language. A choice made while signed out is saved to the profile;
 * otherwise the profile's saved language is applied here (so it follows the person to another browser).
 */
export function languageSync(local: AppLanguage, saved: string | null | undefined, pending: boolean): { push?: AppLanguage; apply?: AppLanguage } {
  if (pending) return saved === local ? {} : { push: local };
  if (isAppLanguage(saved) && saved !== local) return { apply: saved };
  return {};
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
