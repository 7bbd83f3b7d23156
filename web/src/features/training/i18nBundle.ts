import i18n from 'i18next';
import en from './i18n/en.json';
import ja from './i18n/ja.json';

/** The 'training' strings; the prediction pages use them too (type names, metric names). */
i18n.addResourceBundle('en', 'training', en, true, true);
i18n.addResourceBundle('ja', 'training', ja, true, true);
