import Alert from '@mui/material/Alert';
import Snackbar from '@mui/material/Snackbar';
import { closeSnackbar, useSnack } from '../lib/feedback';

export default function SnackbarHost() {
  const snack = useSnack();
  return (
    <Snackbar
      key={snack?.id}
      open={snack !== null}
      autoHideDuration={5000}
      onClose={(_, reason) => reason !== 'clickaway' && closeSnackbar()}
      anchorOrigin={{ vertical: 'bottom', horizontal: 'center' }}
    >
      <Alert severity={snack?.severity ?? 'success'} variant="filled" onClose={() => closeSnackbar()} sx={{ minWidth: 280 }}>
        {snack?.text}
      </Alert>
    </Snackbar>
  );
}
