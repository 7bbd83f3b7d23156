import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Divider from '@mui/material/Divider';
import Paper from '@mui/material/Paper';
import TextField from '@mui/material/TextField';
import PlayArrowIcon from '@mui/icons-material/PlayArrow';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate, useParams } from 'react-router';
import { ApiError, reportError } from '../../api/client';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { showSnackbar } from '../../lib/feedback';
import { useDatasetSchema } from '../datasets/api';
import { type RegisterInput, registerProject, statKeys, type TestType, useColumnValues } from './api';
import { hasAlternative, NS, RUN_NOTICE, sourcesOf, testLabel, usesMean } from './labels';
import { detailsPath } from './ProjectListPage';
import { DataSection, type Errors, type Form, FORM_KEYS, OptionsSection, Section, type Shape, shapeOf, TestSelect } from './RegisterSections';

const NUMERIC = ['integer', 'float'];
const CATEGORY = ['string', 'integer', 'boolean', 'float'];
/** Server field names → the form's fields (422 entries say where the problem is). */
const FIELD_OF: Record<string, string> = { significance_level: 'alpha', hypothetical_mean: 'mean' };
const INITIAL: Form = {
  testType: 'two_sample_t',
  source: 'split',
  variable1: '',
  variable2: '',
  category: '',
  group1: '',
  group2: '',
  groups: [],
  mean: '0',
  alpha: '0.05',
  alternative: 'two-sided',
  equalVariance: 'auto',
  name: '',
  comment: '',
};

/** What the server receives: only the fields the chosen test uses. */
function payload(f: Form, s: Shape, t: TFunction): RegisterInput {
  const body: RegisterInput = {
    name: f.name.trim() || `${testLabel(t, f.testType)}: ${f.variable1}${f.variable2 && !s.withCategory ? ` / ${f.variable2}` : ''}`,
    comment: f.comment,
    test_type: f.testType,
    variable1: f.variable1,
    variable2: null,
    category: null,
    group1: null,
    group2: null,
    groups: [],
    hypothetical_mean: Number(f.mean),
    significance_level: Number(f.alpha),
    alternative: hasAlternative(f.testType) ? f.alternative : 'two-sided',
    equal_variance: f.equalVariance,
  };
  if (f.testType === 'anova') return { ...body, category: f.category || null, groups: f.groups };
  if (s.twoColumns) return { ...body, variable2: f.variable2 || null };
  if (s.src === 'split') return { ...body, category: f.category || null, group1: f.group1 || null, group2: f.group2 || null, variable2: s.paired ? f.variable2 || null : null };
  return body;
}

/** What is missing or wrong before anything is sent. */
function validate(f: Form, s: Shape, t: TFunction): Errors {
  const e: Errors = {};
  const a = Number(f.alpha);
  if (f.alpha.trim() === '' || !(a > 0 && a < 1)) e.alpha = t('errors.alphaRange');
  if (!f.variable1) e.variable1 = t('errors.required');
  if (usesMean(f.testType, s.src) && (f.mean.trim() === '' || !Number.isFinite(Number(f.mean)))) e.mean = t('errors.meanNumber');
  if (s.twoColumns && !f.variable2) e.variable2 = t('errors.required');
  if (s.withCategory && !f.category) e.category = t('errors.required');
  if (s.src === 'split') {
    if (!f.group1) e.group1 = t('errors.required');
    if (!f.group2) e.group2 = t('errors.required');
    if (f.group1 && f.group1 === f.group2) e.group2 = t('errors.groupsSame');
  }
  return e;
}

/** /statistical-analysis/register/{dataset_id}: the test, its variables and options (SPEC §3 statistical project),
 * one section component each. */
export default function RegisterPage() {
  const { t } = useTranslation(NS);
  const { dataset_id: datasetId = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const schema = useDatasetSchema(datasetId);
  usePageTitle(t('register.title'));
  const [form, setForm] = useState<Form>(INITIAL);
  const [errors, setErrors] = useState<Errors>({});
  const edit = (patch: Partial<Form>, clears?: keyof Errors) => {
    setForm((f) => ({ ...f, ...patch }));
    if (clears) setErrors((e) => ({ ...e, [clears]: undefined }));
  };

  const columns = useMemo(() => schema.data?.columns ?? [], [schema.data]);
  const numeric = useMemo(() => columns.filter((c) => NUMERIC.includes(c.type)), [columns]);
  const categorical = useMemo(() => columns.filter((c) => CATEGORY.includes(c.type) && c.name !== form.variable1), [columns, form.variable1]);
  const shape = shapeOf(form);
  const values = useColumnValues(datasetId, shape.withCategory && form.category ? form.category : null);

  const chooseTest = (v: TestType) => {
    const keepV1 = v !== 'chi_square' && (!form.variable1 || numeric.some((c) => c.name === form.variable1));
    edit({ testType: v, source: sourcesOf(v)[0] ?? 'columns', variable1: keepV1 ? form.variable1 : '' });
    setErrors({});
  };

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
          if ((FORM_KEYS as readonly string[]).includes(key)) next[key] = f.message;
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
    const e = validate(form, shape, t);
    setErrors(e);
    if (Object.values(e).some(Boolean)) return;
    submit.mutate(payload(form, shape, t));
  };

  if (schema.isLoading) return <PageLoading />;
  if (!schema.data) return null;

  return (
    <>
      <PageHeader title={t('register.title')} subtitle={t('register.subtitle', { name: schema.data.name })} />
      {numeric.length === 0 && form.testType !== 'chi_square' && (
        <Alert severity="warning" sx={{ mb: 2 }}>
          {t('register.noNumeric')}
        </Alert>
      )}
      <Paper variant="outlined" component="form" noValidate onSubmit={(e) => { e.preventDefault(); onSubmit(); }} sx={{ p: { xs: 2, md: 3 }, maxWidth: 1040 }}>
        <Section title={t('register.settings')}>
          <TestSelect value={form.testType} onChange={chooseTest} />
          <TextField label={t('fields.name')} value={form.name} onChange={(e) => edit({ name: e.target.value }, 'name')} error={!!errors.name} helperText={errors.name ?? t('fields.nameHelp')} fullWidth slotProps={{ htmlInput: { maxLength: 200 } }} />
        </Section>
        <Divider sx={{ mb: 2 }} />
        <DataSection
          form={form}
          shape={shape}
          errors={errors}
          edit={edit}
          onSource={(source) => { edit({ source }); setErrors({}); }}
          columns={columns}
          numeric={numeric}
          categorical={categorical}
          values={values.data?.values ?? []}
        />
        <Divider sx={{ mb: 2 }} />
        <OptionsSection form={form} shape={shape} errors={errors} edit={edit} />
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
