import TextField, { type TextFieldProps } from '@mui/material/TextField';

type Props = Omit<TextFieldProps, 'onChange' | 'error' | 'helperText' | 'required'> & {
  onValue: (v: string) => void;
  /** What is wrong with the value (shown under it, the field in red), or nothing. */
  problem?: string | false | null;
};

/** A required text field of the sign-in and account forms (e-mail, passwords). */
export default function RequiredField({ onValue, problem, ...field }: Props) {
  return <TextField {...field} onChange={(e) => onValue(e.target.value)} error={!!problem} helperText={problem || undefined} required />;
}
