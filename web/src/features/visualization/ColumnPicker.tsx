import Autocomplete from '@mui/material/Autocomplete';
import Chip from '@mui/material/Chip';
import TextField from '@mui/material/TextField';

interface Base {
  label: string;
  options: string[];
  minWidth?: number;
}

/** One column, chosen by name (type to search). */
export function ColumnSelect({ label, options, value, onChange, minWidth = 220, clearable = false }: Base & { value: string | null; onChange: (v: string | null) => void; clearable?: boolean }) {
  return (
    <Autocomplete
      size="small"
      options={options}
      value={value}
      disableClearable={!clearable as false}
      onChange={(_, v) => onChange(v)}
      sx={{ minWidth }}
      renderInput={(params) => <TextField {...params} label={label} />}
    />
  );
}

/** Several columns, at most `max`. */
export function ColumnsSelect({ label, options, value, onChange, max, minWidth = 320 }: Base & { value: string[]; onChange: (v: string[]) => void; max?: number }) {
  return (
    <Autocomplete
      multiple
      size="small"
      options={options}
      value={value}
      disableCloseOnSelect
      onChange={(_, v) => onChange(max ? v.slice(0, max) : v)}
      getOptionDisabled={(o) => !!max && value.length >= max && !value.includes(o)}
      sx={{ minWidth, flex: 1 }}
      renderValue={(selected, getItemProps) => selected.map((o, index) => <Chip size="small" label={o} {...getItemProps({ index })} key={o} />)}
      renderInput={(params) => <TextField {...params} label={label} />}
    />
  );
}
