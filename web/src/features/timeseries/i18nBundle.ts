import i18n from 'i18next';
import en from './i18n/en.json';
import ja from './i18n/ja.json';

/** The 'timeseries' strings; the prediction wizard uses them too (metric names, the threshold in force). */
i18n.addResourceBundle('en', 'timeseries', en, true, true);
i18n.addResourceBundle('ja', 'timeseries', ja, true, true);
