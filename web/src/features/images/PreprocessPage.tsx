import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import FormControlLabel from '@mui/material/FormControlLabel';
import LinearProgress from '@mui/material/LinearProgress';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Slider from '@mui/material/Slider';
import Step from '@mui/material/Step';
import StepLabel from '@mui/material/StepLabel';
import Stepper from '@mui/material/Stepper';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import RefreshIcon from '@mui/icons-material/Refresh';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { ApiError, reportError } from '../../api/client';
import { useCanWrite } from '../../api/me';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { formatInteger } from '../../lib/format';
import {
  DEFAULT_OPERATIONS,
  imagePreprocessResult,
  previewImagePreprocess,
  registerPreprocessed,
  startImagePreprocess,
  useImageDataset,
  type ImageOperations,
  type PreprocessPreview,
} from './api';
import { AuthImage, CountsTable, NS } from './shared';

const PREVIEW_COUNT = 4;
const DEBOUNCE_MS = 350;

function SliderField({ label, value, min, max, step, format, onChange }: { label: string; value: number; min: number; max: number; step: number; format: (v: number) => string; onChange: (v: number) => void }) {
  return (
    <Box sx={{ mb: 1 }}>
      <Typography variant="body2" id={`${label}-label`}>
        {label}: <b>{format(value)}</b>
      </Typography>
      <Slider size="small" value={value} min={min} max={max} step={step} onChange={(_, v) => onChange(v as number)} valueLabelDisplay="auto" valueLabelFormat={format} slotProps={{ input: { 'aria-label': label } }} />
    </Box>
  );
}

/** The operations, in the order the engine applies them. */
function OperationsForm({ ops, onChange }: { ops: ImageOperations; onChange: (o: ImageOperations) => void }) {
  const { t } = useTranslation(NS);
  const set = (patch: Partial<ImageOperations>) => onChange({ ...ops, ...patch });
  const pctText = (v: number) => `${Math.round(v * 100)} %`;
  return (
    <Box>
      <Typography variant="subtitle2" sx={{ mt: 1 }}>
        {t('pre.crop')}
      </Typography>
      <Box sx={{ display: 'grid', gridTemplateColumns: '1fr 1fr', columnGap: 2 }}>
        {(['left', 'right', 'top', 'bottom'] as const).map((side) => (
          <SliderField key={side} label={t(`pre.side.${side}`)} value={ops.crop[side]} min={0} max={0.45} step={0.01} format={pctText} onChange={(v) => set({ crop: { ...ops.crop, [side]: v } })} />
        ))}
      </Box>
      <Typography variant="subtitle2" sx={{ mt: 1 }}>
        {t('pre.geometry')}
      </Typography>
      <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap', mt: 1.5, mb: 1 }}>
        <TextField select size="small" label={t('pre.rotate')} value={[0, 90, 180, 270].includes(ops.rotate) ? ops.rotate : 'free'} onChange={(e) => set({ rotate: e.target.value === 'free' ? 15 : Number(e.target.value) })} sx={{ minWidth: 170 }}>
          {[0, 90, 180, 270].map((a) => (
            <MenuItem key={a} value={a}>
              {t('pre.degrees', { n: a })}
            </MenuItem>
          ))}
          <MenuItem value="free">{t('pre.freeAngle')}</MenuItem>
        </TextField>
        <FormControlLabel control={<Checkbox checked={ops.hflip} onChange={(e) => set({ hflip: e.target.checked })} />} label={t('pre.hflip')} />
        <FormControlLabel control={<Checkbox checked={ops.vflip} onChange={(e) => set({ vflip: e.target.checked })} />} label={t('pre.vflip')} />
      </Box>
      {![0, 90, 180, 270].includes(ops.rotate) && (
        <SliderField label={t('pre.angle')} value={ops.rotate} min={-45} max={45} step={1} format={(v) => t('pre.degrees', { n: v })} onChange={(v) => set({ rotate: v === 0 ? 1 : v })} />
      )}
      <FormControlLabel
        control={<Checkbox checked={!!ops.resize} onChange={(e) => set({ resize: e.target.checked ? { width: 224, height: 224, mode: 'stretch' } : null })} />}
        label={t('pre.resize')}
      />
      {ops.resize && (
        <Box sx={{ display: 'flex', gap: 1, mb: 1, flexWrap: 'wrap' }}>
          <TextField
            size="small"
            type="number"
            label={t('pre.width')}
            value={ops.resize.width}
            onChange={(e) => set({ resize: { ...ops.resize!, width: Math.round(Number(e.target.value)) } })}
            slotProps={{ htmlInput: { min: 8, max: 4096 } }}
            sx={{ width: 110 }}
            error={!(ops.resize.width >= 8 && ops.resize.width <= 4096)}
            helperText={!(ops.resize.width >= 8 && ops.resize.width <= 4096) ? t('pre.sizeRange') : undefined}
          />
          <TextField
            size="small"
            type="number"
            label={t('pre.height')}
            value={ops.resize.height}
            onChange={(e) => set({ resize: { ...ops.resize!, height: Math.round(Number(e.target.value)) } })}
            slotProps={{ htmlInput: { min: 8, max: 4096 } }}
            sx={{ width: 110 }}
            error={!(ops.resize.height >= 8 && ops.resize.height <= 4096)}
            helperText={!(ops.resize.height >= 8 && ops.resize.height <= 4096) ? t('pre.sizeRange') : undefined}
          />
          <TextField select size="small" label={t('pre.resizeMode')} value={ops.resize.mode} onChange={(e) => set({ resize: { ...ops.resize!, mode: e.target.value as 'stretch' | 'fit' | 'pad' } })} sx={{ minWidth: 200 }}>
            {(['stretch', 'fit', 'pad'] as const).map((m) => (
              <MenuItem key={m} value={m}>
                {t(`pre.mode.${m}`)}
              </MenuItem>
            ))}
          </TextField>
        </Box>
      )}
      <Typography variant="subtitle2" sx={{ mt: 1 }}>
        {t('pre.tone')}
      </Typography>
      <FormControlLabel control={<Checkbox checked={ops.grayscale} onChange={(e) => set({ grayscale: e.target.checked })} />} label={t('pre.grayscale')} />
      <SliderField label={t('pre.brightness')} value={ops.brightness} min={0.1} max={3} step={0.05} format={(v) => `×${v.toFixed(2)}`} onChange={(v) => set({ brightness: v })} />
      <SliderField label={t('pre.contrast')} value={ops.contrast} min={0.1} max={3} step={0.05} format={(v) => `×${v.toFixed(2)}`} onChange={(v) => set({ contrast: v })} />
      <TextField select size="small" fullWidth label={t('pre.normalize')} value={ops.normalize} onChange={(e) => set({ normalize: e.target.value as ImageOperations['normalize'] })} helperText={t(`pre.normalizeHelp.${ops.normalize}`)}>
        {(['none', 'autocontrast', 'equalize'] as const).map((m) => (
          <MenuItem key={m} value={m}>
            {t(`pre.norm.${m}`)}
          </MenuItem>
        ))}
      </TextField>
      <Button sx={{ mt: 1 }} size="small" onClick={() => onChange(DEFAULT_OPERATIONS)}>
        {t('pre.reset')}
      </Button>
    </Box>
  );
}

const sizeValid = (o: ImageOperations) => !o.resize || (o.resize.width >= 8 && o.resize.width <= 4096 && o.resize.height >= 8 && o.resize.height <= 4096);

/** Before/after of a few real images, recomputed by the engine a moment after each change. */
function LivePreview({ datasetId, ops, total }: { datasetId: string; ops: ImageOperations; total: number }) {
  const { t } = useTranslation(NS);
  const [ids, setIds] = useState<string[]>([]); // none: the server takes a few of every class
  const [debounced, setDebounced] = useState(ops);
  useEffect(() => {
    const h = setTimeout(() => setDebounced(ops), DEBOUNCE_MS);
    return () => clearTimeout(h);
  }, [ops]);
  const q = useQuery({
    queryKey: ['images', 'preprocess-preview', datasetId, ids, debounced],
    queryFn: ({ signal }) => previewImagePreprocess(datasetId, debounced, ids, signal),
    enabled: sizeValid(debounced),
    placeholderData: (prev) => prev,
    retry: false,
  });
  const other = () => {
    // another handful of images, spread over the dataset (ids are the manifest's six-digit numbers)
    const picks = new Set<string>();
    while (picks.size < Math.min(PREVIEW_COUNT, total)) picks.add(String(Math.floor(Math.random() * total)).padStart(6, '0'));
    setIds([...picks]);
  };
  const busy = q.isFetching || debounced !== ops;
  return (
    <Box>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1 }}>
        <Typography variant="subtitle1" sx={{ flex: 1 }}>
          {t('pre.previewTitle')}
        </Typography>
        <Button size="small" startIcon={<RefreshIcon />} onClick={other}>
          {t('pre.otherImages')}
        </Button>
      </Box>
      <Box sx={{ height: 4, mb: 1 }}>{busy && <LinearProgress aria-label={t('pre.updating')} />}</Box>
      {q.error && <Alert severity="error">{q.error instanceof ApiError ? q.error.message : String(q.error)}</Alert>}
      <Box role="list" aria-label={t('pre.previewTitle')} sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(300px, 1fr))', gap: 2 }}>
        {q.data?.items.map((it: PreprocessPreview['items'][number]) => (
          <Paper role="listitem" variant="outlined" key={it.id} sx={{ p: 1 }}>
            <Typography variant="caption" noWrap component="div" title={it.name}>
              {it.label ?? ''} · {it.name}
            </Typography>
            <Box sx={{ display: 'flex', gap: 1 }}>
              {(['before', 'after'] as const).map((k) => (
                <Box key={k} sx={{ flex: 1, minWidth: 0 }}>
                  <img src={it[k]} alt={`${t(`pre.${k}`)}: ${it.name}`} style={{ width: '100%', height: 140, objectFit: 'contain', background: '#222', display: 'block' }} />
                  <Typography variant="caption" color="text.secondary">
                    {t(`pre.${k}`)} · {(k === 'before' ? it.before_size : it.after_size).join(' × ')} px
                  </Typography>
                </Box>
              ))}
            </Box>
          </Paper>
        ))}
      </Box>
    </Box>
  );
}

/**
 * /pre-processing/details/{dataset_id} for an image dataset (SPEC §2 wizard 'Preprocessing: dataset,
 * preprocessing, registration'): the dataset's counts, the operations with a live before/after preview on real
 * images, then a run over every image and its registration as a new dataset (labels and splits kept).
 */
type ImageSummary = NonNullable<ReturnType<typeof useImageDataset>['data']>['image'];

/** The first step: what the dataset holds, per class and split, with a few of its images. */
function DatasetStep({ id, img, canWrite, onNext }: { id: string; img: ImageSummary; canWrite: boolean; onNext: () => void }) {
  const { t } = useTranslation(NS);
  return (
    <Paper variant="outlined" sx={{ p: 2 }}>
      <Typography variant="h6">{t('pre.stepDataset')}</Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        {t(`type.${img.kind === 'classification' ? 'classification' : 'analysis'}`)} · {t('pre.imageCount', { n: formatInteger(img.total) })}
      </Typography>
      <CountsTable classes={img.classes} counts={img.counts} label={t('dataset.counts')} />
      <Box role="list" aria-label={t('dataset.title')} sx={{ display: 'flex', gap: 1, mt: 2, flexWrap: 'wrap' }}>
        {Array.from({ length: Math.min(8, img.total) }, (_, i) => String(i).padStart(6, '0')).map((iid) => (
          <Box role="listitem" key={iid}>
            <AuthImage path={`/api/image/dataset/${encodeURIComponent(id)}/image/${iid}?thumb=1`} alt={iid} size={100} />
          </Box>
        ))}
      </Box>
      <Box sx={{ mt: 2, display: 'flex', gap: 1 }}>
        <Button variant="contained" onClick={onNext} disabled={!canWrite}>
          {t('pre.next')}
        </Button>
      </Box>
    </Paper>
  );
}

/** A few processed images with their labels and sizes, before the new dataset is registered. */
function ProcessedSample({ tempId, sample }: { tempId: string; sample: { id: string; label: string | null; width: number; height: number }[] }) {
  const { t } = useTranslation(NS);
  return (
    <>
      <Typography variant="subtitle2" sx={{ mt: 2 }}>
        {t('pre.processedSample')}
      </Typography>
      <Box role="list" aria-label={t('pre.processedSample')} sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(120px, 1fr))', gap: 1, mt: 1 }}>
        {sample.map((s) => (
          <Box role="listitem" key={s.id}>
            <AuthImage path={`/api/image/preprocess/result/${encodeURIComponent(tempId)}/thumb/${s.id}`} alt={`${s.label ?? ''} ${s.id}`} size={120} />
            <Typography variant="caption">
              {s.label} · {s.width} × {s.height}
            </Typography>
          </Box>
        ))}
      </Box>
    </>
  );
}

export default function PreprocessPage() {
  const { t } = useTranslation(NS);
  const navigate = useNavigate();
  const { dataset_id: id = '' } = useParams();
  const { data, error } = useImageDataset(id);
  const canWrite = useCanWrite();
  const [step, setStep] = useState(0);
  const [ops, setOps] = useState<ImageOperations>(DEFAULT_OPERATIONS);
  const [tempId, setTempId] = useState<string | null>(null);
  const [typedName, setName] = useState<string | null>(null); // null: the suggested name
  const [comment, setComment] = useState('');
  const [saving, setSaving] = useState(false);
  const [nameError, setNameError] = useState('');
  usePageTitle(data ? `${t('pre.title')}: ${data.name}` : t('pre.title'));
  const run = useQuery({
    queryKey: ['images', 'preprocess-run', tempId],
    queryFn: ({ signal }) => imagePreprocessResult(tempId!, signal),
    enabled: !!tempId,
    refetchInterval: (q) => (q.state.data && ['queued', 'running'].includes(q.state.data.state) ? 1000 : false),
  });

  if (error) return <Alert severity="error">{error instanceof ApiError ? error.message : String(error)}</Alert>;
  if (!data) return <PageLoading />;
  const img = data.image;
  const r = run.data;
  const name = typedName ?? `${data.name} (${t('pre.suffix')})`;
  const start = async () => {
    try {
      const s = await startImagePreprocess(id, ops);
      setTempId(s.temp_id);
      setStep(2);
    } catch (e) {
      reportError(e);
    }
  };
  const register = async () => {
    if (!name.trim()) return setNameError(t('pre.nameRequired'));
    setSaving(true);
    try {
      const d = await registerPreprocessed(tempId!, name.trim(), comment);
      navigate(`/dataset/details/${encodeURIComponent(d.id)}/${encodeURIComponent(d.data_type)}`);
    } catch (e) {
      if (e instanceof ApiError && e.fieldErrors.length) setNameError(e.fieldErrors.map((f) => f.message).join(' '));
      else reportError(e);
    } finally {
      setSaving(false);
    }
  };
  return (
    <>
      <PageHeader title={t('pre.title')} subtitle={data.name} />
      <Stepper activeStep={step} sx={{ mb: 2 }}>
        {(['stepDataset', 'stepOperations', 'stepRegister'] as const).map((s) => (
          <Step key={s}>
            <StepLabel>{t(`pre.${s}`)}</StepLabel>
          </Step>
        ))}
      </Stepper>
      {!canWrite && <Alert severity="info" sx={{ mb: 2 }}>{t('pre.viewerOnly')}</Alert>}
      {step === 0 && <DatasetStep id={id} img={img} canWrite={canWrite} onNext={() => setStep(1)} />}
      {step === 1 && (
        <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '360px 1fr' }, gap: 2 }}>
          <Paper variant="outlined" sx={{ p: 2 }}>
            <Typography variant="h6">{t('pre.stepOperations')}</Typography>
            <Typography variant="caption" color="text.secondary" component="p">
              {t('pre.order')}
            </Typography>
            <OperationsForm ops={ops} onChange={setOps} />
          </Paper>
          <Paper variant="outlined" sx={{ p: 2 }}>
            <LivePreview datasetId={id} ops={ops} total={img.total} />
            <Box sx={{ mt: 2, display: 'flex', gap: 1 }}>
              <Button onClick={() => setStep(0)}>{t('pre.back')}</Button>
              <Button variant="contained" onClick={start} disabled={!canWrite || !sizeValid(ops)}>
                {t('pre.run', { n: formatInteger(img.total) })}
              </Button>
            </Box>
          </Paper>
        </Box>
      )}
      {step === 2 && (
        <Paper variant="outlined" sx={{ p: 2 }}>
          <Typography variant="h6">{t('pre.stepRegister')}</Typography>
          {(!r || r.state === 'queued' || r.state === 'running') && (
            <Box sx={{ my: 2 }}>
              <Typography variant="body2">{t('pre.running')}</Typography>
              <LinearProgress variant="determinate" value={Math.round((r?.progress ?? 0) * 100)} aria-label={t('pre.running')} />
            </Box>
          )}
          {r && (r.state === 'failed' || r.state === 'cancelled') && (
            <Alert severity="error" sx={{ my: 2 }} action={<Button onClick={() => (setTempId(null), setStep(1))}>{t('pre.back')}</Button>}>
              {t('pre.failed', { reason: r.error ?? r.state })}
            </Alert>
          )}
          {r?.result && (
            <>
              <Alert severity="success" sx={{ my: 2 }}>
                {t('pre.done', { n: formatInteger(r.result.total) })}
              </Alert>
              <CountsTable classes={r.result.classes} counts={r.result.counts} label={t('pre.resultCounts')} />
              {r.result.skipped.length > 0 && (
                <Alert severity="warning" sx={{ mt: 1 }}>
                  {t('pre.skipped', { n: r.result.skipped.length })}: {r.result.skipped.map((s) => `${s.entry} (${s.reason})`).join(', ')}
                </Alert>
              )}
              <ProcessedSample tempId={r.temp_id} sample={r.sample} />
              {r.dataset_id ? (
                <Alert severity="info" sx={{ mt: 2 }}>
                  {t('pre.alreadyRegistered')}
                </Alert>
              ) : (
                <Box sx={{ mt: 3, display: 'flex', flexDirection: 'column', gap: 2, maxWidth: 520 }}>
                  <TextField
                    label={t('pre.name')}
                    required
                    value={name}
                    onChange={(e) => (setName(e.target.value), setNameError(''))}
                    error={!!nameError}
                    helperText={nameError || undefined}
                    slotProps={{ htmlInput: { maxLength: 200 } }}
                  />
                  <TextField label={t('pre.comment')} value={comment} onChange={(e) => setComment(e.target.value)} multiline minRows={2} slotProps={{ htmlInput: { maxLength: 2000 } }} />
                  <Box sx={{ display: 'flex', gap: 1 }}>
                    <Button onClick={() => (setTempId(null), setStep(1))}>{t('pre.back')}</Button>
                    <Button variant="contained" onClick={register} disabled={saving || !canWrite}>
                      {t('pre.register')}
                    </Button>
                  </Box>
                </Box>
              )}
            </>
          )}
        </Paper>
      )}
    </>
  );
}
