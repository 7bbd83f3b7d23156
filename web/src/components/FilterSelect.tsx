import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import { useTranslation } from 'react-i18next';

type Props<V extends string> = {
  /** The area's i18n namespace: the label is its `filter`, the "all" option its `all`, an option `<prefix>.<value>`. */
  ns: string;
  prefix: string;
  /** The value of the option that removes the filter, first in the list. */
  allValue: V;
  value: V;
  values: readonly V[];
  onChange: (v: V) => void;
  minWidth?: number;
  testId?: string;
};

/** A list page's one-choice filter (state, status, action) with an "all" option first, in the bar of ListPage. */
export default function FilterSelect<V extends string>({ ns, prefix, allValue, value, values, onChange, minWidth = 220, testId }: Props<V>) {
  const { t } = useTranslation(ns);
  return (
    <TextField
      select
      size="small"
      label={t('filter')}
      value={value}
      onChange={(e) => onChange(e.target.value as V)}
      sx={{ minWidth }}
      data-testid={testId}
      // The "all" option may have the empty value: show it anyway, under a raised label.
      slotProps={{ inputLabel: { shrink: true }, select: { displayEmpty: true, ...(testId ? { inputProps: { 'data-testid': `${testId}-input` } } : {}) } }}
    >
      <MenuItem value={allValue}>{t('all')}</MenuItem>
      {values.map((v) => (
        <MenuItem key={v} value={v}>
          {t(`${prefix}.${v}`)}
        </MenuItem>
      ))}
    </TextField>
  );
}
