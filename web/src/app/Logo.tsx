import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';

/** Text logo with a simple mark: a lens (見立て, 'to judge by looking'). */
export default function Logo({ inverted = true }: { inverted?: boolean }) {
  const fg = inverted ? '#ffffff' : '#1f5f8b';
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }} aria-label="Mitate">
      <Box component="svg" viewBox="0 0 32 32" sx={{ width: 26, height: 26 }} aria-hidden>
        <rect width="32" height="32" rx="7" fill={inverted ? 'rgba(255,255,255,0.14)' : '#1f5f8b'} />
        <circle cx="16" cy="16" r="8.5" fill="none" stroke="#ffffff" strokeWidth="3" />
        <circle cx="16" cy="16" r="3" fill="#7fd1c7" />
      </Box>
      <Typography component="span" sx={{ color: fg, fontWeight: 700, fontSize: 19, letterSpacing: 0.3 }}>
        Mitate
      </Typography>
    </Box>
  );
}
