import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import FormControlLabel from '@mui/material/FormControlLabel';
import IconButton from '@mui/material/IconButton';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import { useTranslation } from 'react-i18next';
import InfoGrid from '../../components/InfoGrid';
import { formatNumber } from '../../lib/format';
import { ALGORITHMS, GOALS } from './api';
import { type ConstraintForm, type FeatureForm, isFormError, type TargetForm } from './form';
import { FeaturesTableHead, NS } from './labels';
import type { OptWizardState } from './RegisterWizard';

/** Every step of the optimisation wizard reads and writes the one form of the wizard. */
export interface StepProps {
  w: OptWizardState;
}

/** Trained regression and soft-sensor models of one dataset, ticked in a table. */
export function ModelsStep({ w }: StepProps) {
  const { t } = useTranslation(NS);
  const { trained, isChosen, toggle } = w;
  return (
    <Box>
      <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600, mb: 1 }}>{t('models.title')}</Typography>
      {!trained.length && <Alert severity="info">{t('models.none')}</Alert>}
      {!!trained.length && (
        <Table size="small" aria-label={t('models.title')}>
          <TableHead>
            <TableRow>
              <TableCell padding="checkbox" />
              <TableCell>{t('models.project')}</TableCell>
              <TableCell>{t('models.model')}</TableCell>
              <TableCell>{t('models.target')}</TableCell>
              <TableCell>{t('models.dataset')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {trained.map(({ project: p, model: m }) => {
              const ref = { project_id: p.project_id, model_key: m.model_key };
              const label = `${p.name} / ${m.model_key}`;
              return (
                <TableRow key={`${p.project_id}/${m.model_key}`} hover onClick={() => toggle(ref)} sx={{ cursor: 'pointer' }}>
                  <TableCell padding="checkbox">
                    <Checkbox checked={isChosen(ref)} slotProps={{ input: { 'aria-label': label } }} />
                  </TableCell>
                  <TableCell>{p.name}</TableCell>
                  <TableCell>{m.model_key}</TableCell>
                  <TableCell>{p.target_variables.join(', ')}</TableCell>
                  <TableCell>{p.parent_dataset_name}</TableCell>
                </TableRow>
              );
            })}
          </TableBody>
        </Table>
      )}
    </Box>
  );
}

/** The chosen models: their targets, algorithms, metrics and inputs. */
export function DetailsStep({ w }: StepProps) {
  const { t } = useTranslation(NS);
  const { chosen, info } = w;
  return (
    <Box>
      <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600, mb: 1 }}>{t('details.title')}</Typography>
      {info.data && <InfoGrid items={[{ label: t('models.dataset'), value: info.data.dataset_name }, { label: t('details.inputs'), value: info.data.features.length }]} />}
      {chosen.map(({ project: p, model: m }) => (
        <Paper key={`${p.project_id}/${m.model_key}`} variant="outlined" sx={{ p: 1.5, mt: 1 }}>
          <Typography sx={{ fontWeight: 600 }}>{p.name} / {m.model_key}</Typography>
          <InfoGrid
            items={[
              { label: t('models.target'), value: p.target_variables.join(', ') },
              { label: t('details.algorithm'), value: m.algorithm },
              ...Object.entries(m.metrics ?? {}).filter(([, v]) => typeof v === 'number').slice(0, 4).map(([k, v]) => ({ label: t(`metrics.${k}`, { ns: 'training', defaultValue: k }), value: formatNumber(v as number) })),
              { label: t('details.inputs'), value: p.feature_variables.join(', '), wide: true },
            ]}
          />
        </Paper>
      ))}
    </Box>
  );
}

/** What each target should do, the number of trials and the seed. */
export function ParametersStep({ w }: StepProps) {
  const { t } = useTranslation(NS);
  const { info, targets, setTarget, nTrials, setNTrials, seed, setSeed, forbid, setForbid } = w;
  return (
    <Box>
      <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600, mb: 1 }}>{t('parameters.title')}</Typography>
      <Table size="small" aria-label={t('parameters.targets')}>
        <TableHead>
          <TableRow>
            <TableCell>{t('models.target')}</TableCell>
            <TableCell>{t('parameters.goal')}</TableCell>
            <TableCell>{t('parameters.value')}</TableCell>
            <TableCell>{t('parameters.weight')}</TableCell>
            <TableCell>{t('parameters.trainingRange')}</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {targets.map((tg, i) => {
            const r = info.data?.targets.find((x) => x.name === tg.name);
            return (
              <TableRow key={tg.name}>
                <TableCell>{tg.name}</TableCell>
                <TableCell>
                  <TextField select size="small" value={tg.goal} onChange={(e) => setTarget(i, { goal: e.target.value as TargetForm['goal'] })} label={t('parameters.goal')} sx={{ minWidth: 160 }}>
                    {GOALS.map((g) => <MenuItem key={g} value={g}>{t(`goals.${g}`)}</MenuItem>)}
                  </TextField>
                </TableCell>
                <TableCell>
                  {tg.goal === 'target' && <TextField size="small" label={t('parameters.targetValue')} value={tg.value} onChange={(e) => setTarget(i, { value: e.target.value })} />}
                  {tg.goal === 'range' && (
                    <Box sx={{ display: 'flex', gap: 1 }}>
                      <TextField size="small" label={t('features.lower')} value={tg.lower} onChange={(e) => setTarget(i, { lower: e.target.value })} />
                      <TextField size="small" label={t('features.upper')} value={tg.upper} onChange={(e) => setTarget(i, { upper: e.target.value })} />
                    </Box>
                  )}
                </TableCell>
                <TableCell><TextField size="small" label={t('parameters.weight')} value={tg.weight} onChange={(e) => setTarget(i, { weight: e.target.value })} sx={{ width: 90 }} /></TableCell>
                <TableCell>{r ? `${formatNumber(r.min)} – ${formatNumber(r.max)}` : ''}</TableCell>
              </TableRow>
            );
          })}
        </TableBody>
      </Table>
      <Box sx={{ display: 'flex', gap: 2, mt: 2, flexWrap: 'wrap', alignItems: 'center' }}>
        <TextField size="small" label={t('parameters.trials')} value={nTrials} onChange={(e) => setNTrials(e.target.value)} helperText={t('parameters.trialsHelp')} />
        <TextField size="small" label={t('parameters.seed')} value={seed} onChange={(e) => setSeed(e.target.value)} />
        <FormControlLabel control={<Checkbox checked={forbid} onChange={(e) => setForbid(e.target.checked)} />} label={t('parameters.forbid')} />
      </Box>
    </Box>
  );
}

/** The controllable inputs (range, discrete values or fixed) and the constraints. */
export function FeaturesStep({ w }: StepProps) {
  const { t } = useTranslation(NS);
  const { features, setFeature, range, constraints, setConstraint, setConstraints } = w;
  return (
    <Box>
      <Table size="small" aria-label={t('features.title')}>
        <FeaturesTableHead trainingRange />
        <TableBody>
          {/* Each field is labelled by its bound alone (the row names the feature, which its accessible name keeps):
              'blast_furnace_slag Lower' was cut to 'blast_furnace_slag Lo…' (issue 33). */}
          {features.map((f, i) => {
            const r = range(f.name);
            return (
              <TableRow key={f.name}>
                <TableCell>{f.name}</TableCell>
                <TableCell>
                  {f.category ? (
                    t('features.category')
                  ) : (
                    <TextField select size="small" value={f.kind} onChange={(e) => setFeature(i, { kind: e.target.value as FeatureForm['kind'] })} label={t('features.kind')} slotProps={{ select: { SelectDisplayProps: { 'aria-labelledby': undefined, 'aria-label': `${f.name} ${t('features.kind')}` } } }} sx={{ minWidth: 120 }}>
                      {(['range', 'discrete', 'fixed'] as const).map((k) => <MenuItem key={k} value={k}>{t(`kinds.${k}`)}</MenuItem>)}
                    </TextField>
                  )}
                </TableCell>
                <TableCell>
                  {!f.category && f.kind === 'range' && (
                    <Box sx={{ display: 'flex', gap: 1 }}>
                      <TextField size="small" label={t('features.lower')} slotProps={{ htmlInput: { 'aria-label': `${f.name} ${t('features.lower')}` } }} value={f.lower} onChange={(e) => setFeature(i, { lower: e.target.value })} sx={{ width: 150 }} />
                      <TextField size="small" label={t('features.upper')} slotProps={{ htmlInput: { 'aria-label': `${f.name} ${t('features.upper')}` } }} value={f.upper} onChange={(e) => setFeature(i, { upper: e.target.value })} sx={{ width: 150 }} />
                    </Box>
                  )}
                  {(f.category || f.kind === 'discrete') && (
                    <TextField size="small" label={t('features.values')} slotProps={{ htmlInput: { 'aria-label': `${f.name} ${t('features.values')}` } }} value={f.values} onChange={(e) => setFeature(i, { values: e.target.value })} helperText={f.category ? t('features.levelsHelp', { levels: r?.levels.join(', ') }) : t('features.valuesHelp')} sx={{ width: 310 }} />
                  )}
                  {!f.category && f.kind === 'fixed' && <TextField size="small" label={t('features.value')} slotProps={{ htmlInput: { 'aria-label': `${f.name} ${t('features.value')}` } }} value={f.value} onChange={(e) => setFeature(i, { value: e.target.value })} sx={{ width: 150 }} />}
                </TableCell>
                <TableCell><TextField size="small" slotProps={{ htmlInput: { 'aria-label': `${f.name} ${t('features.unit')}` } }} value={f.unit} onChange={(e) => setFeature(i, { unit: e.target.value })} sx={{ width: 90 }} /></TableCell>
                <TableCell>{r && r.kind === 'numeric' ? `${formatNumber(r.min)} – ${formatNumber(r.max)}` : ''}</TableCell>
              </TableRow>
            );
          })}
        </TableBody>
      </Table>
      <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600, mt: 3, mb: 1 }}>{t('constraints.title')}</Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>{t('constraints.help')}</Typography>
      {constraints.map((c, i) => (
        <Box key={i} sx={{ display: 'flex', gap: 1, mb: 1, flexWrap: 'wrap', alignItems: 'center' }}>
          <TextField size="small" label={t('constraints.name')} value={c.name} onChange={(e) => setConstraint(i, { name: e.target.value })} sx={{ width: 160 }} />
          <TextField select size="small" label={t('constraints.type')} value={c.type} onChange={(e) => setConstraint(i, { type: e.target.value as ConstraintForm['type'], operator: e.target.value === 'sum' ? '=' : c.operator })} sx={{ width: 140 }}>
            <MenuItem value="linear">{t('constraints.linear')}</MenuItem>
            <MenuItem value="sum">{t('constraints.sum')}</MenuItem>
          </TextField>
          <TextField size="small" label={t('constraints.terms')} value={c.terms} onChange={(e) => setConstraint(i, { terms: e.target.value })} placeholder={c.type === 'sum' ? 'cement, water' : '0.1*cement + 1*superplasticizer'} helperText={t(c.type === 'sum' ? 'constraints.sumHint' : 'constraints.linearHint')} sx={{ flex: 1, minWidth: 280 }} />
          <TextField select size="small" label={t('constraints.operator')} value={c.operator} onChange={(e) => setConstraint(i, { operator: e.target.value as ConstraintForm['operator'] })} sx={{ width: 90 }}>
            {(['<=', '>=', '='] as const).map((o) => <MenuItem key={o} value={o}>{o}</MenuItem>)}
          </TextField>
          <TextField size="small" label={t('constraints.value')} value={c.value} onChange={(e) => setConstraint(i, { value: e.target.value })} sx={{ width: 120 }} />
          <IconButton aria-label={t('constraints.remove')} onClick={() => setConstraints((prev) => prev.filter((_, j) => j !== i))}><DeleteOutlineIcon /></IconButton>
        </Box>
      ))}
      <Button onClick={() => setConstraints((prev) => [...prev, { name: '', type: 'linear', terms: '', operator: '<=', value: '' }])}>{t('constraints.add')}</Button>
    </Box>
  );
}

/** The search algorithms. */
export function AlgorithmStep({ w }: StepProps) {
  const { t } = useTranslation(NS);
  const { algorithms, setAlgorithms } = w;
  return (
    <Box>
      {ALGORITHMS.map((a) => (
        <Box key={a}>
          <FormControlLabel
            control={<Checkbox checked={algorithms.includes(a)} onChange={(e) => setAlgorithms((prev) => (e.target.checked ? [...prev, a] : prev.filter((x) => x !== a)))} />}
            label={t(`algorithms.${a}`)}
          />
          <Typography variant="body2" color="text.secondary" sx={{ ml: 4, mt: -1, mb: 1 }}>{t(`algorithmHelp.${a}`)}</Typography>
        </Box>
      ))}
    </Box>
  );
}

/** Name and comment. */
export function InfoStep({ w }: StepProps) {
  const { t } = useTranslation(NS);
  const { name, setName, comment, setComment } = w;
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2, maxWidth: 560 }}>
      <TextField label={t('info.name')} value={name} onChange={(e) => setName(e.target.value)} required />
      <TextField label={t('info.comment')} value={comment} onChange={(e) => setComment(e.target.value)} multiline minRows={2} />
    </Box>
  );
}

/** Everything the optimisation will run with. */
export function PreviewStep({ w }: StepProps) {
  const { t } = useTranslation(NS);
  const { chosen, info, name, settings } = w;
  return (
    <Box>
      {isFormError(settings) ? (
        <Alert severity="warning">{t(settings.key, settings.params)}</Alert>
      ) : (
        <InfoGrid
          items={[
            { label: t('info.name'), value: name },
            { label: t('models.dataset'), value: info.data?.dataset_name ?? '' },
            { label: t('preview.models'), value: chosen.map((x) => `${x.project.name} / ${x.model.model_key}`).join(', '), wide: true },
            { label: t('preview.targets'), value: settings.targets.map((x) => `${x.name}: ${t(`goals.${x.goal}`)}${x.goal === 'target' ? ` ${x.value}` : x.goal === 'range' ? ` ${x.lower}–${x.upper}` : ''}`).join('; '), wide: true },
            { label: t('preview.features'), value: settings.features.map((f) => `${f.name} ${f.kind === 'range' ? `[${f.lower}, ${f.upper}]` : f.kind === 'discrete' ? `{${f.values?.join(', ')}}` : `= ${f.value}`}`).join('; '), wide: true },
            { label: t('constraints.title'), value: settings.constraints.length ? settings.constraints.map((c) => c.name).join(', ') : t('preview.none') },
            { label: t('algorithm.title'), value: settings.algorithms.map((a) => t(`algorithms.${a}`)).join(', ') },
            { label: t('parameters.trials'), value: settings.n_trials },
            { label: t('parameters.seed'), value: settings.seed },
          ]}
        />
      )}
    </Box>
  );
}
