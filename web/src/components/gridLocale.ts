import { jaJP } from '@mui/x-data-grid/locales';
import type { GridLocaleText } from '@mui/x-data-grid';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { formatInteger } from '../lib/format';

const ja = jaJP.components.MuiDataGrid.defaultProps.localeText;

/** The DataGrid's own texts in the UI language (English is its default; its Japanese pager says 'of'). */
export function useGridLocale(): Partial<GridLocaleText> {
  const { t, i18n } = useTranslation();
  return useMemo(() => {
    if (i18n.language !== 'ja') return {};
    const text: Partial<GridLocaleText> = {
      ...ja,
      paginationDisplayedRows: ({ from, to, count }: { from: number; to: number; count: number }) =>
        t('common.displayedRows', { from: formatInteger(from), to: formatInteger(to), count: count === -1 ? '?' : formatInteger(count) }),
    };
    return text;
  }, [i18n.language, t]);
}
