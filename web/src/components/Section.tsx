import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';

/** A titled part of a page in an outlined panel; `roomy` for a form's parts (more padding, more room under the title). */
export default function Section({ title, roomy, children }: { title: string; roomy?: boolean; children: ReactNode }) {
  return (
    <Paper variant="outlined" sx={{ p: roomy ? 2.5 : 2, mb: 2 }}>
      <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, mb: roomy ? 2 : 1 }}>
        {title}
      </Typography>
      {children}
    </Paper>
  );
}
