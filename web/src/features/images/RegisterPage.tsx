import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import FormControlLabel from '@mui/material/FormControlLabel';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { ALGORITHMS, type Augmentation, DEFAULT_SETTINGS, type ImageType, registerImageProject, type Settings, useGallery, useImageDataset, useAuthedImage } from './api';
import { NS } from './shared';

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
      <Typography variant="h6" sx={{ mb: 1.5 }}>
        {title}
      </Typography>
      {children}
    </Paper>
  );
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

export default function RegisterPage({ type }: { type: ImageType }) {
  const { t } = useTranslation(NS);
  const { dataset_id: datasetId } = useParams();
  const navigate = useNavigate();
  usePageTitle(t('register.title', { type: t(`type.${type}`) }));
  const ds = useImageDataset(datasetId);
  const sample = useGallery(datasetId ?? '', 1, 6, 'train', '');
  const [name, setName] = useState('');
  const [algos, setAlgos] = useState<string[]>(type === 'analysis' ? ['patchcore'] : ['finetune']);
  const [s, setS] = useState<Settings>(DEFAULT_SETTINGS);
  const [seed, setSeed] = useState(1);
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const counts = useMemo(() => {
    const c: Record<string, number> = {};
    for (const split of Object.values(ds.data?.image.counts ?? {})) for (const [k, v] of Object.entries(split)) c[k] = (c[k] ?? 0) + v;
    return c;
  }, [ds.data]);
  if (!ds.data) return <PageLoading />;
  const kind = ds.data.image.kind ?? ds.data.training_type;
  const set = <K extends keyof Settings>(k: K, v: Settings[K]) => setS((x) => ({ ...x, [k]: v }));
  const setAug = <K extends keyof Augmentation>(k: K, v: Augmentation[K]) => setS((x) => ({ ...x, augmentation: { ...x.augmentation, [k]: v } }));
  const nameError = submitted && !name.trim();
  const modelError = submitted && !algos.length;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (!name.trim() || !algos.length) return;
    setBusy(true);
    try {
      const p = await registerImageProject(datasetId!, { project_type: type, name: name.trim(), models: algos.map((a) => ({ algorithm: a })), settings: s });
      navigate(`/training/details/${encodeURIComponent(p.project_id)}`);
    } catch {
      setBusy(false);
    }
  };
  const num = (k: keyof Settings, step = 1, width = 220) => (
    <TextField
      size="small"
      type="number"
      label={t(`settings.${k}`)}
      value={s[k] as number}
      onChange={(e) => set(k, Number(e.target.value) as never)}
      slotProps={{ htmlInput: { step } }}
      sx={{ width }}
    />
  );
  return (
    <Box component="form" onSubmit={submit} noValidate sx={{ maxWidth: 980 }}>
      <PageHeader title={t('register.title', { type: t(`type.${type}`) })} subtitle={`${t('register.dataset')}: ${ds.data.name}`} />
      {kind !== type && <Alert severity="error" sx={{ mb: 2 }}>{t('register.wrongKind', { kind: t(`type.${kind}`, { defaultValue: kind }), type: t(`type.${type}`) })}</Alert>}
      <Section title={t('register.name')}>
        <TextField required fullWidth label={t('register.name')} value={name} onChange={(e) => setName(e.target.value)} error={nameError} helperText={nameError ? t('register.name') : ' '} />
        <Typography variant="body2" color="text.secondary">
          {t('register.counts', { total: ds.data.image.total, classes: Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(' · ') })}
        </Typography>
        {type === 'analysis' && !counts.NG && <Alert severity="info" sx={{ mt: 1 }}>{t('register.noNg')}</Alert>}
      </Section>
      <Section title={t('register.models')}>
        {ALGORITHMS[type].map((a) => (
          <Box key={a} sx={{ mb: 1 }}>
            <FormControlLabel
              control={<Checkbox checked={algos.includes(a)} onChange={(e) => setAlgos((x) => (e.target.checked ? [...x, a] : x.filter((y) => y !== a)))} />}
              label={t(`algo.${a}`)}
            />
            <Typography variant="body2" color="text.secondary" sx={{ ml: 4 }}>
              {t(`algoHelp.${a}`)}
            </Typography>
          </Box>
        ))}
        {modelError && <Alert severity="error">{t('register.noModel')}</Alert>}
      </Section>
      <Section title={t('register.settings')}>
        <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap' }}>
          {num('image_size', 16)}
          {num('epochs')}
          {num('batch_size')}
          {num('learning_rate', 0.0001)}
          <TextField select size="small" label={t('settings.schedule')} value={s.schedule} onChange={(e) => set('schedule', e.target.value as Settings['schedule'])} sx={{ width: 220 }}>
            {['cosine', 'step', 'constant'].map((v) => (
              <MenuItem key={v} value={v}>
                {t(`settings.${v}`)}
              </MenuItem>
            ))}
          </TextField>
          {num('early_stopping')}
          <TextField select size="small" label={t('settings.train_layers')} value={s.train_layers} onChange={(e) => set('train_layers', e.target.value as Settings['train_layers'])} sx={{ width: 220 }}>
            {['head', 'top', 'all'].map((v) => (
              <MenuItem key={v} value={v}>
                {t(`settings.${v}`)}
              </MenuItem>
            ))}
          </TextField>
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
      </Section>
      <Section title={t('register.augmentation')}>
        <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', alignItems: 'center' }}>
          <FormControlLabel control={<Checkbox checked={s.augmentation.hflip} onChange={(e) => setAug('hflip', e.target.checked)} />} label={t('settings.hflip')} />
          <FormControlLabel control={<Checkbox checked={s.augmentation.vflip} onChange={(e) => setAug('vflip', e.target.checked)} />} label={t('settings.vflip')} />
          {(['rotate', 'brightness', 'contrast', 'crop'] as const).map((k) => (
            <TextField key={k} size="small" type="number" label={t(`settings.${k}`)} value={s.augmentation[k]} onChange={(e) => setAug(k, Number(e.target.value))} slotProps={{ htmlInput: { step: k === 'rotate' ? 5 : 0.05 } }} sx={{ width: 180 }} />
          ))}
        </Box>
        <Typography variant="body2" color="text.secondary" sx={{ mt: 2, mb: 1 }}>
          {t('register.preview')}{' '}
          <Button size="small" onClick={() => setSeed((x) => x + 1)}>
            ↻
          </Button>
        </Typography>
        <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
          {sample.data?.items.map((it, i) => (
            <AugmentedThumb key={it.id} path={`/api/image/dataset/${encodeURIComponent(datasetId!)}/image/${it.id}?thumb=1`} aug={s.augmentation} seed={seed * 31 + i} />
          ))}
        </Box>
      </Section>
      <Button type="submit" variant="contained" disabled={busy || kind !== type}>
        {t('register.submit')}
      </Button>
    </Box>
  );
}
