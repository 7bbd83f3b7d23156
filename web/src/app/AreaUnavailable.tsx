import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import ConstructionOutlinedIcon from '@mui/icons-material/ConstructionOutlined';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { usePageTitle } from './pageTitle';

export type AreaKey =
  | 'visualization'
  | 'preprocessing'
  | 'training'
  | 'prediction'
  | 'optimization'
  | 'optimalDesign'
  | 'statistics';

/** The honest placeholder for an area that a later version brings. Title from the area. */
export default function AreaUnavailable({ area }: { area: AreaKey }) {
  const { t } = useTranslation();
  const name = t(`nav.${area}`);
  usePageTitle(name);
  return (
    <Box>
      <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
        {name}
      </Typography>
      <Paper variant="outlined" sx={{ p: { xs: 3, md: 6 }, textAlign: 'center' }}>
        <ConstructionOutlinedIcon sx={{ fontSize: 48, color: 'text.secondary' }} />
        <Typography variant="h6" component="p" sx={{ mt: 1 }}>
          {t('unavailable.title', { area: name })}
        </Typography>
        <Typography color="text.secondary" sx={{ mt: 1, maxWidth: 560, mx: 'auto' }}>
          {t('unavailable.text')}
        </Typography>
        <Button component={RouterLink} to="/dataset" variant="outlined" sx={{ mt: 3 }}>
          {t('unavailable.toDatasets')}
        </Button>
      </Paper>
    </Box>
  );
}
