import i18n from 'i18next';
import en from './i18n/en.json';
import ja from './i18n/ja.json';

/** The 'visualization' strings, also used by the pre-processing pages (shared charts and pickers). */
i18n.addResourceBundle('en', 'visualization', en, true, true);
i18n.addResourceBundle('ja', 'visualization', ja, true, true);
