import SearchIcon from '@mui/icons-material/Search';
import InputAdornment from '@mui/material/InputAdornment';
import TextField, { type TextFieldProps } from '@mui/material/TextField';

/** A search box: the magnifier in front, the label as placeholder and accessible name, the text handed back as typed. */
export default function SearchField({ label, value, onChange, ...rest }: { label: string; value: string; onChange: (text: string) => void } & Pick<TextFieldProps, 'sx' | 'size' | 'fullWidth'>) {
  return (
    <TextField
      {...rest}
      placeholder={label}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      slotProps={{
        input: {
          startAdornment: (
            <InputAdornment position="start">
              <SearchIcon fontSize="small" />
            </InputAdornment>
          ),
        },
        htmlInput: { 'aria-label': label },
      }}
    />
  );
}
