import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import FormControlLabel from '@mui/material/FormControlLabel';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import InfoGrid from '../../components/InfoGrid';
import { ALGORITHMS, type Augmentation, type ImageType, type Settings, useAuthedImage, useGallery, type useImageDataset } from './api';
import { NS } from './shared';

type ImageDataset = NonNullable<ReturnType<typeof useImageDataset>['data']>;

/** What every step of the image wizard gets: the dataset, the form and its setters. */
export interface StepProps {
  type: ImageType;
  datasetId: string;
  ds: ImageDataset;
  /** images per class over every split */
  counts: Record<string, number>;
  name: string;
  setName: (v: string) => void;
  algos: string[];
  setAlgos: (f: (x: string[]) => string[]) => void;
  s: Settings;
  set: <K extends keyof Settings>(k: K, v: Settings[K]) => void;
  setAug: <K extends keyof Augmentation>(k: K, v: Augmentation[K]) => void;
  /** i18n key of what Next or Create found wrong on this step */
  error: string | null;
}

/** One random draw of the augmentation, as CSS on a real thumbnail (what training applies with Pillow). */
function AugmentedThumb({ path, aug, seed }: { path: string; aug: Augmentation; seed: number }) {
  const url = useAuthedImage(path);
  const r = (i: number) => {
    const x = Math.sin(seed * 9301 + i * 49297) * 233280;
    return x - Math.floor(x);
  };
  const sx = aug.hflip && r(1) < 0.5 ? -1 : 1;
  const sy = aug.vflip && r(2) < 0.5 ? -1 : 1;
  const rot = aug.rotate ? (r(3) * 2 - 1) * aug.rotate : 0;
  const b = 1 + (aug.brightness ? (r(4) * 2 - 1) * aug.brightness : 0);
  const c = 1 + (aug.contrast ? (r(5) * 2 - 1) * aug.contrast : 0);
  const zoom = aug.crop ? 1 / (1 - r(6) * aug.crop) : 1;
  return (
    <Box sx={{ width: 120, height: 120, overflow: 'hidden', bgcolor: '#222' }}>
      {url && <img src={url} alt="" style={{ width: 120, height: 120, objectFit: 'cover', transform: `scale(${sx * zoom}, ${sy * zoom}) rotate(${rot}deg)`, filter: `brightness(${b}) contrast(${c})` }} />}
    </Box>
  );
}

const classCounts = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([k, v]) => `${k} ${v}`)
    .join(' · ');

/** The project's name and what the dataset holds. */
export function OverviewStep({ type, ds, counts, name, setName, error }: StepProps) {
  const { t } = useTranslation(NS);
  return (
    <Box sx={{ maxWidth: 720 }}>
      <TextField required fullWidth label={t('register.name')} value={name} onChange={(e) => setName(e.target.value)} error={!!error} helperText={error ? t(error) : ' '} slotProps={{ htmlInput: { maxLength: 200 } }} />
      <Typography variant="body2" color="text.secondary">
        {t('register.dataset')}: {ds.name} · {t('register.counts', { total: ds.image.total, classes: classCounts(counts) })}
      </Typography>
      {type === 'analysis' && !counts.NG && (
        <Alert severity="info" sx={{ mt: 1 }}>
          {t('register.noNg')}
        </Alert>
      )}
    </Box>
  );
}

export function ModelsStep({ type, algos, setAlgos, error }: StepProps) {
  const { t } = useTranslation(NS);
  return (
    <Box>
      {ALGORITHMS[type].map((a) => (
        <Box key={a} sx={{ mb: 1 }}>
          <FormControlLabel control={<Checkbox checked={algos.includes(a)} onChange={(e) => setAlgos((x) => (e.target.checked ? [...x, a] : x.filter((y) => y !== a)))} />} label={t(`algo.${a}`)} />
          <Typography variant="body2" color="text.secondary" sx={{ ml: 4 }}>
            {t(`algoHelp.${a}`)}
          </Typography>
        </Box>
      ))}
      {error && <Alert severity="error">{t(error)}</Alert>}
    </Box>
  );
}

export function SettingsStep({ algos, s, set }: StepProps) {
  const { t } = useTranslation(NS);
  const num = (k: keyof Settings, step = 1, width = 220) => (
    <TextField size="small" type="number" label={t(`settings.${k}`)} value={s[k] as number} onChange={(e) => set(k, Number(e.target.value) as never)} slotProps={{ htmlInput: { step } }} sx={{ width }} />
  );
  const choice = <K extends 'schedule' | 'train_layers'>(k: K, values: Settings[K][]) => (
    <TextField select size="small" label={t(`settings.${k}`)} value={s[k]} onChange={(e) => set(k, e.target.value as Settings[K])} sx={{ width: 220 }}>
      {values.map((v) => (
        <MenuItem key={v} value={v}>
          {t(`settings.${v}`)}
        </MenuItem>
      ))}
    </TextField>
  );
  return (
    <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap' }}>
      {num('image_size', 16)}
      {num('epochs')}
      {num('batch_size')}
      {num('learning_rate', 0.0001)}
      {choice('schedule', ['cosine', 'step', 'constant'])}
      {num('early_stopping')}
      {choice('train_layers', ['head', 'top', 'all'])}
      {algos.includes('patchcore') && (
        <TextField
          select
          size="small"
          label={t('settings.patchcore_backbone')}
          helperText={t('settings.patchcore_backbone_help')}
          value={s.patchcore_backbone}
          onChange={(e) => set('patchcore_backbone', e.target.value as Settings['patchcore_backbone'])}
          sx={{ width: 420 }}
        >
          {(['lite0', 'lite1', 'lite2', 'resnet18', 'wide_resnet50_2'] as const).map((v) => (
            <MenuItem key={v} value={v}>
              {t(`settings.backbone_${v}`)}
            </MenuItem>
          ))}
        </TextField>
      )}
      {algos.includes('patchcore') && num('coreset_ratio', 0.01)}
      {algos.includes('patchcore') && num('ok_percentile', 0.5, 320) /* its label is long: not cut (issue 33) */}
      <FormControlLabel control={<Checkbox checked={s.balance} onChange={(e) => set('balance', e.target.checked)} />} label={t('settings.balance')} />
    </Box>
  );
}

export function AugmentationStep({ datasetId, s, setAug }: StepProps) {
  const { t } = useTranslation(NS);
  const [seed, setSeed] = useState(1);
  const sample = useGallery(datasetId, 1, 6, 'train', '');
  return (
    <>
      <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', alignItems: 'center' }}>
        <FormControlLabel control={<Checkbox checked={s.augmentation.hflip} onChange={(e) => setAug('hflip', e.target.checked)} />} label={t('settings.hflip')} />
        <FormControlLabel control={<Checkbox checked={s.augmentation.vflip} onChange={(e) => setAug('vflip', e.target.checked)} />} label={t('settings.vflip')} />
        {(['rotate', 'brightness', 'contrast', 'crop'] as const).map((k) => (
          <TextField key={k} size="small" type="number" label={t(`settings.${k}`)} value={s.augmentation[k]} onChange={(e) => setAug(k, Number(e.target.value))} slotProps={{ htmlInput: { step: k === 'rotate' ? 5 : 0.05 } }} sx={{ width: 180 }} />
        ))}
      </Box>
      <Typography variant="body2" color="text.secondary" sx={{ mt: 2, mb: 1 }}>
        {t('register.preview')}{' '}
        <Button size="small" onClick={() => setSeed((x) => x + 1)} aria-label={t('register.redraw')}>
          ↻
        </Button>
      </Typography>
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
        {sample.data?.items.map((it, i) => (
          <AugmentedThumb key={it.id} path={`/api/image/dataset/${encodeURIComponent(datasetId)}/image/${it.id}?thumb=1`} aug={s.augmentation} seed={seed * 31 + i} />
        ))}
      </Box>
    </>
  );
}

export function PreviewStep({ type, ds, counts, name, algos, s }: StepProps) {
  const { t } = useTranslation(NS);
  const a = s.augmentation;
  const augmentation = [a.hflip && t('settings.hflip'), a.vflip && t('settings.vflip'), ...(['rotate', 'brightness', 'contrast', 'crop'] as const).filter((k) => a[k]).map((k) => `${t(`settings.${k}`)} ${a[k]}`)].filter(Boolean);
  return (
    <InfoGrid
      items={[
        { label: t('register.name'), value: name },
        { label: t('register.type'), value: t(`type.${type}`) },
        { label: t('register.dataset'), value: `${ds.name} (${t('register.counts', { total: ds.image.total, classes: classCounts(counts) })})`, wide: true },
        { label: t('register.models'), value: algos.map((x) => t(`algo.${x}`)).join(', '), wide: true },
        { label: t('settings.image_size'), value: s.image_size },
        { label: t('settings.epochs'), value: s.epochs },
        { label: t('settings.batch_size'), value: s.batch_size },
        { label: t('settings.learning_rate'), value: s.learning_rate },
        { label: t('register.augmentation'), value: augmentation.length ? augmentation.join(', ') : t('register.none'), wide: true },
      ]}
    />
  );
}
