import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';

/** A headline number under its caption: in a row of the panel (platform stats), or with `card` a card of its own in
 * a row of cards (operations). */
export default function Figure({ label, value, testId, card }: { label: string; value: ReactNode; testId?: string; card?: boolean }) {
  const body = (
    <>
      <Typography variant={card ? 'body2' : 'caption'} color="text.secondary">
        {label}
      </Typography>
      <Typography variant={card ? 'h6' : 'h5'} data-testid={testId}>
        {value}
      </Typography>
    </>
  );
  return card ? (
    <Paper variant="outlined" sx={{ p: 2, flex: 1, minWidth: 180 }}>
      {body}
    </Paper>
  ) : (
    <Box>{body}</Box>
  );
}
