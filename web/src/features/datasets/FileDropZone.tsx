import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import { useRef, useState, type DragEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ACCEPTED_EXTENSIONS } from './csvHeader';

/** Drag-and-drop zone plus a button, for one CSV/TSV/TXT file. */
export default function FileDropZone({ onFile, disabled, error }: { onFile: (file: File) => void; disabled?: boolean; error?: boolean }) {
  const { t } = useTranslation();
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const drop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    if (disabled) return;
    const file = e.dataTransfer.files?.[0];
    if (file) onFile(file);
  };
  return (
    <Box
      onDragOver={(e) => {
        e.preventDefault();
        if (!disabled) setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={drop}
      data-testid="file-drop-zone"
      sx={{
        border: '2px dashed',
        borderColor: error ? 'error.main' : over ? 'primary.main' : 'divider',
        bgcolor: over ? 'rgba(31,95,139,0.06)' : '#fafbfc',
        borderRadius: 2,
        p: 3,
        textAlign: 'center',
        transition: 'border-color 120ms, background-color 120ms',
        opacity: disabled ? 0.6 : 1,
      }}
    >
      <UploadFileIcon sx={{ fontSize: 40, color: over ? 'primary.main' : 'text.secondary' }} />
      <Typography sx={{ mt: 1 }}>{t('dataset.register.dropHere')}</Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
        {t('dataset.register.accepted', { extensions: ACCEPTED_EXTENSIONS.join(', ') })}
      </Typography>
      <Button variant="outlined" onClick={() => input.current?.click()} disabled={disabled}>
        {t('dataset.register.chooseFile')}
      </Button>
      <input
        ref={input}
        type="file"
        hidden
        accept={ACCEPTED_EXTENSIONS.join(',')}
        data-testid="file-input"
        aria-label={t('dataset.register.chooseFile')}
        onChange={(e) => {
          const file = e.target.files?.[0];
          if (file) onFile(file);
          e.target.value = '';
        }}
      />
    </Box>
  );
}
