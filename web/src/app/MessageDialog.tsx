import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Typography from '@mui/material/Typography';
import ErrorOutlineIcon from '@mui/icons-material/ErrorOutlined';
import { useTranslation } from 'react-i18next';
import { closeMessage, useCurrentMessage } from '../lib/feedback';

/** SPEC §2: the modal message dialog, title 'Message', fields 'Error' and 'Details'. */
export default function MessageDialog() {
  const { t } = useTranslation();
  const message = useCurrentMessage();
  const details = message?.details;
  const lines = Array.isArray(details) ? details : details ? [details] : [];
  return (
    <Dialog
      open={message !== null}
      onClose={closeMessage}
      maxWidth="sm"
      fullWidth
      aria-labelledby="message-dialog-title"
      aria-describedby="message-dialog-error"
    >
      <DialogTitle id="message-dialog-title" sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
        <ErrorOutlineIcon color="error" fontSize="small" />
        {t('message.title')}
      </DialogTitle>
      <DialogContent dividers>
        <Typography variant="subtitle2" color="text.secondary">
          {t('message.error')}
        </Typography>
        <Typography id="message-dialog-error" sx={{ mb: lines.length ? 2 : 0, whiteSpace: 'pre-line' }}>
          {message?.error}
        </Typography>
        {lines.length > 0 && (
          <>
            <Typography variant="subtitle2" color="text.secondary">
              {t('message.details')}
            </Typography>
            {lines.length === 1 ? (
              <Typography sx={{ whiteSpace: 'pre-line', wordBreak: 'break-word' }}>{lines[0]}</Typography>
            ) : (
              <Box component="ul" sx={{ m: 0, pl: 2.5 }}>
                {lines.map((line, i) => (
                  <li key={i}>
                    <Typography sx={{ wordBreak: 'break-word' }}>{line}</Typography>
                  </li>
                ))}
              </Box>
            )}
          </>
        )}
      </DialogContent>
      <DialogActions>
        <Button variant="contained" onClick={closeMessage} autoFocus>
          {t('common.ok')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
