import Alert from '@mui/material/Alert';
import Autocomplete from '@mui/material/Autocomplete';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Divider from '@mui/material/Divider';
import FormLabel from '@mui/material/FormLabel';
import ListSubheader from '@mui/material/ListSubheader';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import TextField from '@mui/material/TextField';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import PlayArrowIcon from '@mui/icons-material/PlayArrow';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate, useParams } from 'react-router';
import { ApiError, reportError } from '../../api/client';
import type { DatasetColumn } from '../../api/types';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { showSnackbar } from '../../lib/feedback';
import { formatInteger } from '../../lib/format';
import { useDatasetSchema } from '../datasets/api';
import { type Alternative, type EqualVariance, type RegisterInput, registerProject, statKeys, type TestType, useColumnValues } from './api';
import { hasAlternative, meanLabelKey, NS, RUN_NOTICE, type Source, sourcesOf, testLabel, usesCategory, usesMean } from './labels';
import { detailsPath } from './ProjectListPage';
import { columnTypeLabel } from '../datasets/labels';

const NUMERIC = ['integer', 'float'];
const CATEGORY = ['string', 'integer', 'boolean', 'float'];
const TEST_GROUPS: [string, TestType[]][] = [
  ['means', ['two_sample_t', 'paired_t', 'one_sample_t', 'anova']],
  ['ranks', ['mann_whitney', 'wilcoxon']],
  ['other', ['chi_square', 'pearson', 'spearman', 'shapiro', 'f_test']],
];
/** Server field names → the form's fields (422 entries say where the problem is). */
const FIELD_OF: Record<string, string> = { significance_level: 'alpha', hypothetical_mean: 'mean' };

type Errors = Partial<Record<'name' | 'variable1' | 'variable2' | 'category' | 'group1' | 'group2' | 'groups' | 'alpha' | 'mean', string>>;

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Box component="section" sx={{ mb: 3 }}>
      <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, mb: 1.5 }}>
        {title}
      </Typography>
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, gap: 2 }}>{children}</Box>
    </Box>
  );
}

function ColumnSelect(props: {
  label: string;
  value: string;
  columns: DatasetColumn[];
  onChange: (v: string) => void;
  error?: string;
  helperText?: string;
  emptyLabel?: string;
  required?: boolean;
}) {
  const { t } = useTranslation(NS);
  return (
    <TextField
      select
      label={props.label}
      value={props.value}
      onChange={(e) => props.onChange(e.target.value)}
      error={!!props.error}
      helperText={props.error ?? props.helperText}
      required={props.required}
      fullWidth
    >
      {props.emptyLabel !== undefined && (
        <MenuItem value="">
          <em>{props.emptyLabel}</em>
        </MenuItem>
      )}
      {props.columns.map((c) => (
        <MenuItem key={c.name} value={c.name}>
          <Box sx={{ display: 'flex', justifyContent: 'space-between', width: '100%', gap: 2 }}>
            <span>{c.name}</span>
            <Typography component="span" variant="caption" color="text.secondary">
              {columnTypeLabel(t, c.type)}
            </Typography>
          </Box>
        </MenuItem>
      ))}
    </TextField>
  );
}

/** /statistical-analysis/register/{dataset_id}: the test, its variables and options (SPEC §3 statistical project). */
export default function RegisterPage() {
  const { t } = useTranslation(NS);
  const { dataset_id: datasetId = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const schema = useDatasetSchema(datasetId);
  usePageTitle(t('register.title'));

  const [testType, setTestType] = useState<TestType>('two_sample_t');
  const [source, setSource] = useState<Source>('split');
  const [variable1, setVariable1] = useState('');
  const [variable2, setVariable2] = useState('');
  const [category, setCategory] = useState('');
  const [group1, setGroup1] = useState('');
  const [group2, setGroup2] = useState('');
  const [groups, setGroups] = useState<string[]>([]);
  const [mean, setMean] = useState('0');
  const [alpha, setAlpha] = useState('0.05');
  const [alternative, setAlternative] = useState<Alternative>('two-sided');
  const [equalVariance, setEqualVariance] = useState<EqualVariance>('auto');
  const [name, setName] = useState('');
  const [comment, setComment] = useState('');
  const [errors, setErrors] = useState<Errors>({});

  const columns = useMemo(() => schema.data?.columns ?? [], [schema.data]);
  const numeric = useMemo(() => columns.filter((c) => NUMERIC.includes(c.type)), [columns]);
  const categorical = useMemo(() => columns.filter((c) => CATEGORY.includes(c.type) && c.name !== variable1), [columns, variable1]);
  const sources = sourcesOf(testType);
  const src: Source | null = sources.length ? (sources.includes(source) ? source : sources[0]) : null;
  const withCategory = usesCategory(testType, src);
  const values = useColumnValues(datasetId, withCategory && category ? category : null);
  const valueOptions = values.data?.values ?? [];
  const paired = testType === 'paired_t' || (testType === 'wilcoxon' && src !== 'one');

  const clear = (k: keyof Errors) => setErrors((e) => ({ ...e, [k]: undefined }));
  const chooseTest = (v: TestType) => {
    setTestType(v);
    setSource(sourcesOf(v)[0] ?? 'columns');
    setErrors({});
    if (v === 'chi_square') setVariable1('');
    else if (variable1 && !numeric.some((c) => c.name === variable1)) setVariable1('');
  };

  /** What the server receives: only the fields the chosen test uses. */
  function payload(): RegisterInput {
    const body: RegisterInput = {
      name: name.trim() || `${testLabel(t, testType)}: ${variable1}${variable2 && !withCategory ? ` / ${variable2}` : ''}`,
      comment,
      test_type: testType,
      variable1,
      variable2: null,
      category: null,
      group1: null,
      group2: null,
      groups: [],
      hypothetical_mean: Number(mean),
      significance_level: Number(alpha),
      alternative: hasAlternative(testType) ? alternative : 'two-sided',
      equal_variance: equalVariance,
    };
    if (testType === 'anova') return { ...body, category: category || null, groups };
    if (['chi_square', 'pearson', 'spearman'].includes(testType) || src === 'columns') return { ...body, variable2: variable2 || null };
    if (src === 'split') return { ...body, category: category || null, group1: group1 || null, group2: group2 || null, variable2: paired ? variable2 || null : null };
    return body;
  }

  function validate(): Errors {
    const e: Errors = {};
    const a = Number(alpha);
    if (alpha.trim() === '' || !(a > 0 && a < 1)) e.alpha = t('errors.alphaRange');
    if (!variable1) e.variable1 = t('errors.required');
    if (usesMean(testType, src) && (mean.trim() === '' || !Number.isFinite(Number(mean)))) e.mean = t('errors.meanNumber');
    const needsV2 = ['chi_square', 'pearson', 'spearman'].includes(testType) || src === 'columns';
    if (needsV2 && !variable2) e.variable2 = t('errors.required');
    if (withCategory && !category) e.category = t('errors.required');
    if (src === 'split') {
      if (!group1) e.group1 = t('errors.required');
      if (!group2) e.group2 = t('errors.required');
      if (group1 && group1 === group2) e.group2 = t('errors.groupsSame');
    }
    return e;
  }

  const submit = useMutation({
    mutationFn: (body: RegisterInput) => registerProject(datasetId, body, { silent: true }),
    onSuccess: (p) => {
      showSnackbar(t('register.created'), 'success', RUN_NOTICE);
      void queryClient.invalidateQueries({ queryKey: statKeys.all });
      navigate(detailsPath(p.id));
    },
    onError: (err) => {
      if (err instanceof ApiError && err.status === 422 && err.fieldErrors.length) {
        const next: Errors = {};
        const unplaced: string[] = [];
        for (const f of err.fieldErrors) {
          const key = (FIELD_OF[f.field] ?? f.field) as keyof Errors;
          if (['name', 'variable1', 'variable2', 'category', 'group1', 'group2', 'groups', 'alpha', 'mean'].includes(key)) next[key] = f.message;
          else unplaced.push(f.message);
        }
        setErrors(next);
        if (unplaced.length) reportError(err);
        return;
      }
      reportError(err);
    },
  });

  const onSubmit = () => {
    const e = validate();
    setErrors(e);
    if (Object.values(e).some(Boolean)) return;
    submit.mutate(payload());
  };

  if (schema.isLoading) return <PageLoading />;
  if (!schema.data) return null;

  const v1Label =
    testType === 'chi_square' ? t('fields.rowVariable') : ['pearson', 'spearman'].includes(testType) ? t('fields.xVariable') : paired && src === 'columns' ? t('fields.before') : withCategory ? t('fields.valueColumn') : t('fields.variable1');
  const v2Label = testType === 'chi_square' ? t('fields.columnVariable') : ['pearson', 'spearman'].includes(testType) ? t('fields.yVariable') : paired ? t('fields.after') : t('fields.variable2');
  const groupOption = (v: { value: string; count: number }) => (
    <MenuItem key={v.value} value={v.value}>
      {t('fields.valueCount', { value: v.value, count: formatInteger(v.count) })}
    </MenuItem>
  );

  return (
    <>
      <PageHeader title={t('register.title')} subtitle={t('register.subtitle', { name: schema.data.name })} />
      {numeric.length === 0 && testType !== 'chi_square' && (
        <Alert severity="warning" sx={{ mb: 2 }}>
          {t('register.noNumeric')}
        </Alert>
      )}
      <Paper variant="outlined" component="form" noValidate onSubmit={(e) => { e.preventDefault(); onSubmit(); }} sx={{ p: { xs: 2, md: 3 }, maxWidth: 1040 }}>
        <Section title={t('register.settings')}>
          <TextField
            select
            label={t('fields.testType')}
            value={testType}
            onChange={(e) => chooseTest(e.target.value as TestType)}
            helperText={t(`tests.${testType}.help`)}
            fullWidth
          >
            {TEST_GROUPS.flatMap(([group, types]) => [
              <ListSubheader key={group}>{t(`groupsOfTests.${group}`)}</ListSubheader>,
              ...types.map((ty) => (
                <MenuItem key={ty} value={ty}>
                  {testLabel(t, ty)}
                </MenuItem>
              )),
            ])}
          </TextField>
          <TextField label={t('fields.name')} value={name} onChange={(e) => { setName(e.target.value); clear('name'); }} error={!!errors.name} helperText={errors.name ?? t('fields.nameHelp')} fullWidth slotProps={{ htmlInput: { maxLength: 200 } }} />
        </Section>
        <Divider sx={{ mb: 2 }} />
        <Section title={t('register.data')}>
          {sources.length > 1 && (
            <Box sx={{ gridColumn: '1 / -1' }}>
              <FormLabel id="source-label" sx={{ display: 'block', mb: 0.75, fontSize: 14 }}>
                {t('fields.source')}
              </FormLabel>
              <ToggleButtonGroup exclusive size="small" color="primary" value={src} aria-labelledby="source-label" onChange={(_, v: Source | null) => { if (v) { setSource(v); setErrors({}); } }}>
                {sources.map((s) => (
                  <ToggleButton key={s} value={s} sx={{ textTransform: 'none' }}>
                    {t(`sources.${s}`)}
                  </ToggleButton>
                ))}
              </ToggleButtonGroup>
            </Box>
          )}
          <ColumnSelect
            label={v1Label}
            value={variable1}
            columns={testType === 'chi_square' ? columns : numeric}
            onChange={(v) => { setVariable1(v); clear('variable1'); }}
            error={errors.variable1}
            helperText={testType === 'chi_square' ? undefined : t('register.numericOnly')}
            required
          />
          {(['chi_square', 'pearson', 'spearman'].includes(testType) || src === 'columns') && (
            <ColumnSelect
              label={v2Label}
              value={variable2}
              columns={(testType === 'chi_square' ? columns : numeric).filter((c) => c.name !== variable1)}
              onChange={(v) => { setVariable2(v); clear('variable2'); }}
              error={errors.variable2}
              required
            />
          )}
          {withCategory && (
            <ColumnSelect label={t('fields.category')} value={category} columns={categorical} onChange={(v) => { setCategory(v); setGroup1(''); setGroup2(''); setGroups([]); clear('category'); }} error={errors.category} required />
          )}
          {src === 'split' && paired && (
            <ColumnSelect label={t('fields.pairKey')} value={variable2} columns={columns.filter((c) => c.name !== variable1 && c.name !== category)} onChange={setVariable2} emptyLabel={t('fields.none')} helperText={t('fields.pairKeyHelp')} error={errors.variable2} />
          )}
          {src === 'split' && (
            <>
              <TextField select label={t('fields.group1')} value={group1} onChange={(e) => { setGroup1(e.target.value); clear('group1'); }} error={!!errors.group1} helperText={errors.group1} disabled={!category} required fullWidth>
                {valueOptions.map(groupOption)}
              </TextField>
              <TextField select label={t('fields.group2')} value={group2} onChange={(e) => { setGroup2(e.target.value); clear('group2'); }} error={!!errors.group2} helperText={errors.group2} disabled={!category} required fullWidth>
                {valueOptions.map(groupOption)}
              </TextField>
            </>
          )}
          {testType === 'anova' && (
            <Autocomplete
              multiple
              options={valueOptions.map((v) => v.value)}
              value={groups}
              onChange={(_, v) => { setGroups(v); clear('groups'); }}
              disabled={!category}
              renderValue={(vals, getItemProps) => vals.map((v, i) => <Chip size="small" label={v} {...getItemProps({ index: i })} key={v} />)}
              renderInput={(params) => <TextField {...params} label={t('fields.groups')} error={!!errors.groups} helperText={errors.groups ?? t('fields.groupsHelp')} />}
            />
          )}
        </Section>
        <Divider sx={{ mb: 2 }} />
        <Section title={t('register.options')}>
          <TextField
            label={t('fields.significanceLevel')}
            value={alpha}
            onChange={(e) => { setAlpha(e.target.value); clear('alpha'); }}
            error={!!errors.alpha}
            helperText={errors.alpha ?? t('fields.significanceHelp')}
            required
            fullWidth
            slotProps={{ htmlInput: { inputMode: 'decimal' } }}
          />
          {hasAlternative(testType) && (
            <TextField select label={t('fields.alternative')} value={alternative} onChange={(e) => setAlternative(e.target.value as Alternative)} fullWidth>
              {(['two-sided', 'less', 'greater'] as const).map((a) => (
                <MenuItem key={a} value={a}>
                  {t(`alternatives.${a}`)}
                </MenuItem>
              ))}
            </TextField>
          )}
          {testType === 'two_sample_t' && (
            <TextField select label={t('fields.equalVariance')} value={equalVariance} onChange={(e) => setEqualVariance(e.target.value as EqualVariance)} fullWidth>
              {(['auto', 'student', 'welch'] as const).map((a) => (
                <MenuItem key={a} value={a}>
                  {t(`equalVariances.${a}`)}
                </MenuItem>
              ))}
            </TextField>
          )}
          {usesMean(testType, src) && (
            <TextField
              label={t(meanLabelKey(testType, src))}
              value={mean}
              onChange={(e) => { setMean(e.target.value); clear('mean'); }}
              error={!!errors.mean}
              helperText={errors.mean}
              fullWidth
              slotProps={{ htmlInput: { inputMode: 'decimal' } }}
            />
          )}
          <TextField label={t('fields.comment')} value={comment} onChange={(e) => setComment(e.target.value)} fullWidth multiline minRows={1} sx={{ gridColumn: '1 / -1' }} slotProps={{ htmlInput: { maxLength: 2000 } }} />
        </Section>
        <Box sx={{ display: 'flex', gap: 1, justifyContent: 'flex-end' }}>
          <Button component={RouterLink} to="/statistical-analysis">
            {t('register.cancel')}
          </Button>
          <Button type="submit" variant="contained" startIcon={<PlayArrowIcon />} disabled={submit.isPending}>
            {t('register.submit')}
          </Button>
        </Box>
      </Paper>
    </>
  );
}
