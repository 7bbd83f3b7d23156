import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import ReplayIcon from '@mui/icons-material/Replay';
import { useTranslation } from 'react-i18next';
import { isRouteErrorResponse, useRouteError } from 'react-router';
import { reloadPage } from '../lib/browser';
import { ChunkLoadError } from './lazy';
import NotFound from './NotFound';
import { usePageTitle } from './pageTitle';

/** What a route shows when its chunk could not be loaded, or its page crashed. */
export default function RouteErrorPage() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFound />;
  return <ErrorPanel error={error} />;
}

export function ErrorPanel({ error }: { error: unknown }) {
  const { t } = useTranslation();
  const chunk = error instanceof ChunkLoadError ? error : null;
  const title = chunk ? t('chunkError.title') : t('errors.unknown');
  usePageTitle(title);
  const text = chunk
    ? chunk.code === 'CHUNK_LOAD_TIMEOUT'
      ? t('chunkError.timeout')
      : chunk.code === 'CSS_CHUNK_LOAD_FAILED'
        ? t('chunkError.style')
        : t('chunkError.failed')
    : t('errors.unknownText');
  const code = chunk ? chunk.code : 'UNEXPECTED_ERROR';
  return (
    <Box sx={{ maxWidth: 640, mx: 'auto', py: 8, px: 2 }} role="alert">
      <Typography variant="h5" component="h1" gutterBottom>
        {title}
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 2 }}>
        {text}
      </Typography>
      <Alert severity="error" sx={{ mb: 3 }}>
        {t('chunkError.code', { code })}
        {!chunk && error instanceof Error && error.message ? ` — ${error.message}` : ''}
      </Alert>
      <Button variant="contained" startIcon={<ReplayIcon />} onClick={() => reloadPage()}>
        {t('chunkError.reload')}
      </Button>
    </Box>
  );
}
