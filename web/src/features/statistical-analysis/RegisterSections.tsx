import Autocomplete from '@mui/material/Autocomplete';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import FormLabel from '@mui/material/FormLabel';
import ListSubheader from '@mui/material/ListSubheader';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { DatasetColumn } from '../../api/types';
import { formatInteger } from '../../lib/format';
import { columnTypeLabel } from '../datasets/labels';
import type { Alternative, EqualVariance, TestType } from './api';
import { hasAlternative, meanLabelKey, NS, type Source, sourcesOf, testLabel, usesCategory, usesMean } from './labels';

const TEST_GROUPS: [string, TestType[]][] = [
  ['means', ['two_sample_t', 'paired_t', 'one_sample_t', 'anova']],
  ['ranks', ['mann_whitney', 'wilcoxon']],
  ['other', ['chi_square', 'pearson', 'spearman', 'shapiro', 'f_test']],
];

/** The register form's values, as typed. */
export interface Form {
  testType: TestType;
  source: Source;
  variable1: string;
  variable2: string;
  category: string;
  group1: string;
  group2: string;
  groups: string[];
  mean: string;
  alpha: string;
  alternative: Alternative;
  equalVariance: EqualVariance;
  name: string;
  comment: string;
}
export const FORM_KEYS = ['name', 'variable1', 'variable2', 'category', 'group1', 'group2', 'groups', 'alpha', 'mean'] as const;
export type Errors = Partial<Record<(typeof FORM_KEYS)[number], string>>;

/** Where the chosen test takes its data from and which fields that brings. */
export function shapeOf(f: Pick<Form, 'testType' | 'source'>) {
  const sources = sourcesOf(f.testType);
  const src: Source | null = sources.length ? (sources.includes(f.source) ? f.source : sources[0]) : null;
  const paired = f.testType === 'paired_t' || (f.testType === 'wilcoxon' && src !== 'one');
  const twoColumns = ['chi_square', 'pearson', 'spearman'].includes(f.testType) || src === 'columns';
  return { sources, src, withCategory: usesCategory(f.testType, src), paired, twoColumns };
}
export type Shape = ReturnType<typeof shapeOf>;

/** A part of the form: its title, then its fields in two columns. */
export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Box component="section" sx={{ mb: 3 }}>
      <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, mb: 1.5 }}>
        {title}
      </Typography>
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, gap: 2 }}>{children}</Box>
    </Box>
  );
}

interface ColumnSelectProps {
  label: string;
  value: string;
  columns: DatasetColumn[];
  onChange: (v: string) => void;
  error?: string;
  helperText?: string;
  emptyLabel?: string;
  required?: boolean;
}

function ColumnSelect(props: ColumnSelectProps) {
  const { t } = useTranslation(NS);
  return (
    <TextField select label={props.label} value={props.value} onChange={(e) => props.onChange(e.target.value)} error={!!props.error} helperText={props.error ?? props.helperText} required={props.required} fullWidth>
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

/** The test, grouped by kind, with what it is for. */
export function TestSelect({ value, onChange }: { value: TestType; onChange: (v: TestType) => void }) {
  const { t } = useTranslation(NS);
  return (
    <TextField select label={t('fields.testType')} value={value} onChange={(e) => onChange(e.target.value as TestType)} helperText={t(`tests.${value}.help`)} fullWidth>
      {TEST_GROUPS.flatMap(([group, types]) => [
        <ListSubheader key={group}>{t(`groupsOfTests.${group}`)}</ListSubheader>,
        ...types.map((ty) => (
          <MenuItem key={ty} value={ty}>
            {testLabel(t, ty)}
          </MenuItem>
        )),
      ])}
    </TextField>
  );
}

interface DataProps {
  form: Form;
  shape: Shape;
  errors: Errors;
  /** Changes fields; `clears` is the field whose error goes with the change. */
  edit: (patch: Partial<Form>, clears?: keyof Errors) => void;
  onSource: (s: Source) => void;
  columns: DatasetColumn[];
  numeric: DatasetColumn[];
  categorical: DatasetColumn[];
  values: { value: string; count: number }[];
}

/** The data the test reads: the source (two columns, one split by a category, one column), its columns and groups. */
export function DataSection({ form, shape, errors, edit, onSource, columns, numeric, categorical, values }: DataProps) {
  const { t } = useTranslation(NS);
  const { testType } = form;
  const { sources, src, withCategory, paired, twoColumns } = shape;
  const correlation = ['pearson', 'spearman'].includes(testType);
  const v1Label =
    testType === 'chi_square' ? t('fields.rowVariable') : correlation ? t('fields.xVariable') : paired && src === 'columns' ? t('fields.before') : withCategory ? t('fields.valueColumn') : t('fields.variable1');
  const v2Label = testType === 'chi_square' ? t('fields.columnVariable') : correlation ? t('fields.yVariable') : paired ? t('fields.after') : t('fields.variable2');
  const groupOption = (v: { value: string; count: number }) => (
    <MenuItem key={v.value} value={v.value}>
      {t('fields.valueCount', { value: v.value, count: formatInteger(v.count) })}
    </MenuItem>
  );
  const group = (k: 'group1' | 'group2') => (
    <TextField select label={t(`fields.${k}`)} value={form[k]} onChange={(e) => edit({ [k]: e.target.value }, k)} error={!!errors[k]} helperText={errors[k]} disabled={!form.category} required fullWidth>
      {values.map(groupOption)}
    </TextField>
  );
  return (
    <Section title={t('register.data')}>
      {sources.length > 1 && (
        <Box sx={{ gridColumn: '1 / -1' }}>
          <FormLabel id="source-label" sx={{ display: 'block', mb: 0.75, fontSize: 14 }}>
            {t('fields.source')}
          </FormLabel>
          <ToggleButtonGroup exclusive size="small" color="primary" value={src} aria-labelledby="source-label" onChange={(_, v: Source | null) => v && onSource(v)}>
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
        value={form.variable1}
        columns={testType === 'chi_square' ? columns : numeric}
        onChange={(v) => edit({ variable1: v }, 'variable1')}
        error={errors.variable1}
        helperText={testType === 'chi_square' ? undefined : t('register.numericOnly')}
        required
      />
      {twoColumns && (
        <ColumnSelect
          label={v2Label}
          value={form.variable2}
          columns={(testType === 'chi_square' ? columns : numeric).filter((c) => c.name !== form.variable1)}
          onChange={(v) => edit({ variable2: v }, 'variable2')}
          error={errors.variable2}
          required
        />
      )}
      {withCategory && (
        <ColumnSelect label={t('fields.category')} value={form.category} columns={categorical} onChange={(v) => edit({ category: v, group1: '', group2: '', groups: [] }, 'category')} error={errors.category} required />
      )}
      {src === 'split' && paired && (
        <ColumnSelect
          label={t('fields.pairKey')}
          value={form.variable2}
          columns={columns.filter((c) => c.name !== form.variable1 && c.name !== form.category)}
          onChange={(v) => edit({ variable2: v })}
          emptyLabel={t('fields.none')}
          helperText={t('fields.pairKeyHelp')}
          error={errors.variable2}
        />
      )}
      {src === 'split' && (
        <>
          {group('group1')}
          {group('group2')}
        </>
      )}
      {testType === 'anova' && (
        <Autocomplete
          multiple
          options={values.map((v) => v.value)}
          value={form.groups}
          onChange={(_, v) => edit({ groups: v }, 'groups')}
          disabled={!form.category}
          renderValue={(vals, getItemProps) => vals.map((v, i) => <Chip size="small" label={v} {...getItemProps({ index: i })} key={v} />)}
          renderInput={(params) => <TextField {...params} label={t('fields.groups')} error={!!errors.groups} helperText={errors.groups ?? t('fields.groupsHelp')} />}
        />
      )}
    </Section>
  );
}

/** The test's options: significance level, alternative, equal variances, hypothetical mean; the comment. */
export function OptionsSection({ form, shape, errors, edit }: Pick<DataProps, 'form' | 'shape' | 'errors' | 'edit'>) {
  const { t } = useTranslation(NS);
  const { testType } = form;
  return (
    <Section title={t('register.options')}>
      <TextField
        label={t('fields.significanceLevel')}
        value={form.alpha}
        onChange={(e) => edit({ alpha: e.target.value }, 'alpha')}
        error={!!errors.alpha}
        helperText={errors.alpha ?? t('fields.significanceHelp')}
        required
        fullWidth
        slotProps={{ htmlInput: { inputMode: 'decimal' } }}
      />
      {hasAlternative(testType) && (
        <TextField select label={t('fields.alternative')} value={form.alternative} onChange={(e) => edit({ alternative: e.target.value as Alternative })} fullWidth>
          {(['two-sided', 'less', 'greater'] as const).map((a) => (
            <MenuItem key={a} value={a}>
              {t(`alternatives.${a}`)}
            </MenuItem>
          ))}
        </TextField>
      )}
      {testType === 'two_sample_t' && (
        <TextField select label={t('fields.equalVariance')} value={form.equalVariance} onChange={(e) => edit({ equalVariance: e.target.value as EqualVariance })} fullWidth>
          {(['auto', 'student', 'welch'] as const).map((a) => (
            <MenuItem key={a} value={a}>
              {t(`equalVariances.${a}`)}
            </MenuItem>
          ))}
        </TextField>
      )}
      {usesMean(testType, shape.src) && (
        <TextField
          label={t(meanLabelKey(testType, shape.src))}
          value={form.mean}
          onChange={(e) => edit({ mean: e.target.value }, 'mean')}
          error={!!errors.mean}
          helperText={errors.mean}
          fullWidth
          slotProps={{ htmlInput: { inputMode: 'decimal' } }}
        />
      )}
      <TextField
        label={t('fields.comment')}
        value={form.comment}
        onChange={(e) => edit({ comment: e.target.value })}
        fullWidth
        multiline
        minRows={1}
        sx={{ gridColumn: '1 / -1' }}
        slotProps={{ htmlInput: { maxLength: 2000 } }}
      />
    </Section>
  );
}
