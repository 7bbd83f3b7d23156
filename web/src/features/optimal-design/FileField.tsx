import UploadFileIcon from '@mui/icons-material/UploadFile';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import { useTranslation } from 'react-i18next';

/** A labelled CSV picker (the input stays in the page so tests and keyboards reach it). */
export default function FileField({ label, file, onChange, testId }: { label: string; file: File | null; onChange: (f: File | null) => void; testId: string }) {
  const { t } = useTranslation('optimalDesign');
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, flexWrap: 'wrap', my: 1 }}>
      <Typography variant="body2" sx={{ minWidth: 260 }}>
        {label}
      </Typography>
      <Button component="label" variant="outlined" size="small" startIcon={<UploadFileIcon />}>
        {t('chooseFile')}
        <input hidden type="file" accept=".csv,text/csv" data-testid={testId} aria-label={label} onChange={(e) => onChange(e.target.files?.[0] ?? null)} />
      </Button>
      <Typography variant="body2" color="text.secondary">
        {file ? file.name : t('noFile')}
      </Typography>
    </Box>
  );
}
