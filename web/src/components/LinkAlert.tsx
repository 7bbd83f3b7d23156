import Alert, { type AlertProps } from '@mui/material/Alert';
import Button from '@mui/material/Button';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';

type Props = Omit<AlertProps, 'action'> & {
  /** The page the notice leads to; absent, the notice has no button. */
  to?: string;
  /** The button's words. */
  linkLabel: ReactNode;
  /** Controls after the button (a close button). */
  extra?: ReactNode;
  'data-testid'?: string;
};

/** A notice with a button that leads to the page where it is dealt with (complete registration, review now, pay). */
export default function LinkAlert({ to, linkLabel, extra, children, ...alert }: Props) {
  // undefined, not false: Alert keeps room for any other action value
  const link =
    to === undefined ? undefined : (
      <Button component={RouterLink} to={to} color="inherit" size="small">
        {linkLabel}
      </Button>
    );
  return (
    <Alert
      {...alert}
      action={
        extra ? (
          <>
            {link}
            {extra}
          </>
        ) : (
          link
        )
      }
    >
      {children}
    </Alert>
  );
}
