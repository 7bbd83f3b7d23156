import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { usePageTitle } from './pageTitle';

/** SPEC §2: '/404' and every unknown path. */
export default function NotFound() {
  const { t } = useTranslation();
  usePageTitle(t('notFound.title'));
  return (
    <Box sx={{ textAlign: 'center', py: { xs: 8, md: 12 }, px: 2 }}>
      <Typography component="p" sx={{ fontSize: { xs: 96, md: 140 }, fontWeight: 700, lineHeight: 1, color: 'primary.main', opacity: 0.85 }}>
        404
      </Typography>
      <Typography variant="h4" component="h1" sx={{ mt: 2 }}>
        {t('notFound.title')}
      </Typography>
      <Typography color="text.secondary" sx={{ mt: 1 }}>
        {t('notFound.text')}
      </Typography>
      <Button component={RouterLink} to="/" variant="contained" sx={{ mt: 4 }}>
        {t('notFound.home')}
      </Button>
    </Box>
  );
}
