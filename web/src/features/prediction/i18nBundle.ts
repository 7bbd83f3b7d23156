import i18n from 'i18next';
import en from './i18n/en.json';
import ja from './i18n/ja.json';

/** The 'prediction' strings; the time-series prediction page uses them too (the state words). */
i18n.addResourceBundle('en', 'prediction', en, true, true);
i18n.addResourceBundle('ja', 'prediction', ja, true, true);
