import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';

type Props<V extends string> = {
  label: string;
  /** The option that removes the filter, first in the list; `allValue` is its value. */
  allLabel: string;
  allValue: V;
  value: V;
  values: readonly V[];
  labelOf: (v: V) => string;
  onChange: (v: V) => void;
  minWidth?: number;
  testId?: string;
};

/** A list page's one-choice filter (state, status, action) with an "all" option first, in the bar of ListPage. */
export default function FilterSelect<V extends string>({ label, allLabel, allValue, value, values, labelOf, onChange, minWidth = 220, testId }: Props<V>) {
  return (
    <TextField
      select
      size="small"
      label={label}
      value={value}
      onChange={(e) => onChange(e.target.value as V)}
      sx={{ minWidth }}
      data-testid={testId}
      // The "all" option may have the empty value: show it anyway, under a raised label.
      slotProps={{ inputLabel: { shrink: true }, select: { displayEmpty: true, ...(testId ? { inputProps: { 'data-testid': `${testId}-input` } } : {}) } }}
    >
      <MenuItem value={allValue}>{allLabel}</MenuItem>
      {values.map((v) => (
        <MenuItem key={v} value={v}>
          {labelOf(v)}
        </MenuItem>
      ))}
    </TextField>
  );
}
