import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';

export interface InfoItem {
  label: string;
  value: ReactNode;
  wide?: boolean;
}

/** Label / value pairs in a responsive grid: the metadata blocks of details pages. */
export default function InfoGrid({ items, minWidth = 200 }: { items: InfoItem[]; minWidth?: number }) {
  return (
    <Box
      component="dl"
      sx={{
        display: 'grid',
        gridTemplateColumns: `repeat(auto-fill, minmax(${minWidth}px, 1fr))`,
        columnGap: 3,
        rowGap: 1.5,
        m: 0,
      }}
    >
      {items.map((item) => (
        <Box key={item.label} sx={{ gridColumn: item.wide ? '1 / -1' : undefined, minWidth: 0 }}>
          <Typography component="dt" variant="caption" color="text.secondary" sx={{ display: 'block' }}>
            {item.label}
          </Typography>
          <Typography component="dd" variant="body2" sx={{ m: 0, wordBreak: 'break-word', whiteSpace: 'pre-line' }}>
            {item.value === null || item.value === undefined || item.value === '' ? '—' : item.value}
          </Typography>
        </Box>
      ))}
    </Box>
  );
}
