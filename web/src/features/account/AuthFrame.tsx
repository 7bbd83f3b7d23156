import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import LanguageSwitcher from '../../app/LanguageSwitcher';
import Logo from '../../app/Logo';

/** The frame of the sign-in screens: a centred card under the product mark. */
export default function AuthFrame({ title, children, width = 420 }: { title: string; children: ReactNode; width?: number }) {
  return (
    <Box
      sx={{
        minHeight: '100vh',
        bgcolor: 'background.default',
        backgroundImage: 'linear-gradient(180deg, #154566 0, #1f5f8b 240px, transparent 240px)',
        display: 'flex',
        flexDirection: 'column',
        alignItems: 'center',
        px: 2,
      }}
    >
      <Box sx={{ width: '100%', maxWidth: width, display: 'flex', justifyContent: 'space-between', alignItems: 'center', py: 2 }}>
        <Logo />
        <Box sx={{ color: '#fff' }}>
          <LanguageSwitcher />
        </Box>
      </Box>
      <Paper variant="outlined" sx={{ width: '100%', maxWidth: width, p: { xs: 3, sm: 4 }, mt: 3, boxShadow: '0 8px 24px rgba(21,69,102,0.10)' }}>
        <Typography variant="h5" component="h1" sx={{ mb: 3 }}>
          {title}
        </Typography>
        {children}
      </Paper>
    </Box>
  );
}
