import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';

interface Props {
  label: string;
  value: string;
  options: readonly string[];
  labelOf: (v: string) => string;
  onChange: (v: string) => void;
  /** label of an extra empty choice ('All', 'None'…) */
  emptyLabel?: string;
  required?: boolean;
  error?: boolean;
  helperText?: string;
  name?: string;
  fullWidth?: boolean;
  minWidth?: number;
}

/** A select over one of the dataset enums, with translated labels. */
export default function EnumSelect({ label, value, options, labelOf, onChange, emptyLabel, required, error, helperText, name, fullWidth = true, minWidth }: Props) {
  return (
    <TextField
      select
      label={label}
      value={value}
      name={name}
      onChange={(e) => onChange(e.target.value)}
      required={required}
      error={error}
      helperText={helperText}
      fullWidth={fullWidth}
      sx={minWidth ? { minWidth } : undefined}
    >
      {emptyLabel !== undefined && (
        <MenuItem value="">
          <em>{emptyLabel}</em>
        </MenuItem>
      )}
      {options.map((o) => (
        <MenuItem key={o} value={o}>
          {labelOf(o)}
        </MenuItem>
      ))}
    </TextField>
  );
}
