import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/errors';
import { reportError } from '../../api/client';
import { saveSetup, type AccountProfile, type Profile } from './api';

export type Section = 'basic' | 'address' | 'account' | 'organisation';

type Kind = 'text' | 'date' | 'select' | 'email' | 'tel' | 'url';
interface FieldDef {
  name: string;
  kind?: Kind;
  required?: boolean;
  options?: () => { value: string; label: string }[];
  autoComplete?: string;
  wide?: boolean;
}

export const ORGANISATION_SIZES = ['under_10', '10_49', '50_149', '150_249', '250_999', '1000_plus'];
export const CURRENCIES = ['JPY', 'USD', 'EUR', 'GBP', 'CNY', 'KRW', 'TWD', 'SGD', 'THB', 'INR', 'AUD', 'CAD', 'CHF'] as const;

/** Every ISO 3166 region the browser can name, in the UI language. */
export function countries(lang: string): { value: string; label: string }[] {
  const names = new Intl.DisplayNames([lang === 'ja' ? 'ja' : 'en'], { type: 'region' });
  const out: { value: string; label: string }[] = [];
  const A = 'A'.charCodeAt(0);
  for (let i = 0; i < 26; i++) {
    for (let j = 0; j < 26; j++) {
      const code = String.fromCharCode(A + i, A + j);
      if (['EU', 'EZ', 'UN', 'QO', 'XA', 'XB', 'ZZ', 'AA', 'QM'].includes(code)) continue;
      let label: string | undefined;
      try {
        label = names.of(code);
      } catch {
        label = undefined;
      }
      if (label && label !== code && !/unknown/i.test(label) && label !== '不明な地域') out.push({ value: code, label });
    }
  }
  return out.sort((a, b) => a.label.localeCompare(b.label, lang));
}

function useSections(): Record<Section, FieldDef[]> {
  const { t, i18n } = useTranslation();
  return useMemo(
    () => ({
      // Japanese puts the family name first.
      basic: [
        ...((i18n.language === 'ja'
          ? [
              { name: 'last_name', required: true, autoComplete: 'family-name' },
              { name: 'first_name', required: true, autoComplete: 'given-name' },
              { name: 'middle_name', autoComplete: 'additional-name' },
            ]
          : [
              { name: 'first_name', required: true, autoComplete: 'given-name' },
              { name: 'middle_name', autoComplete: 'additional-name' },
              { name: 'last_name', required: true, autoComplete: 'family-name' },
            ]) as FieldDef[]),
        { name: 'birth_date', kind: 'date', required: true, autoComplete: 'bday' },
        { name: 'gender', kind: 'select', options: () => ['male', 'female', 'other'].map((g) => ({ value: g, label: t(`onboarding.genders.${g}`) })) },
        { name: 'phone', kind: 'tel', required: true, autoComplete: 'tel' },
        { name: 'department' },
        { name: 'office_location' },
      ],
      address: [
        { name: 'country_code', kind: 'select', required: true, options: () => countries(i18n.language), autoComplete: 'country' },
        { name: 'state_or_province', required: true, autoComplete: 'address-level1' },
        { name: 'city', required: true, autoComplete: 'address-level2' },
        { name: 'postal_code', required: true, autoComplete: 'postal-code' },
        { name: 'address', required: true, autoComplete: 'street-address', wide: true },
      ],
      account: [
        { name: 'account_name', required: true },
        { name: 'currency', kind: 'select', options: () => CURRENCIES.map((c) => ({ value: c, label: c })) },
      ],
      organisation: [
        { name: 'organisation_name', required: true, autoComplete: 'organization' },
        { name: 'ceo', required: true },
        { name: 'vat_number' },
        { name: 'registration_number' },
        { name: 'organisation_email', kind: 'email', required: true },
        { name: 'organisation_phone', kind: 'tel', required: true },
        { name: 'website', kind: 'url', required: true },
        { name: 'organisation_size', kind: 'select', required: true, options: () => ORGANISATION_SIZES.map((s) => ({ value: s, label: t(`onboarding.sizes.${s}`) })) },
        { name: 'industry' },
      ],
    }),
    [t, i18n.language],
  );
}

/**
 * The SPEC §3 Member / Account / Organisation form, by sections: complete registration shows them all,
 * each profile tab some. The server checks every SPEC §5 rule; its 422 entries appear under their fields.
 */
export default function SetupForm({
  profile,
  sections,
  complete,
  readOnly,
  submitLabel,
  onSaved,
}: {
  profile: Profile;
  sections: Section[];
  complete?: boolean;
  readOnly?: boolean;
  submitLabel?: string;
  /** The saved profile (the account's fields; the platform-administrator flag comes only with GET profile). */
  onSaved?: (p: AccountProfile) => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const defs = useSections();
  const fields = sections.flatMap((s) => defs[s]);
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(fields.map((f) => [f.name, profile.values[f.name as keyof Profile['values']] ?? (f.name === 'currency' ? profile.settings.currency : '')])),
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const missing = fields.filter((f) => f.required && !values[f.name]?.trim()).map((f) => f.name);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    setFormError(null);
    if (missing.length) {
      setFormError(t('onboarding.requiredMissing'));
      return;
    }
    setBusy(true);
    try {
      const body: Record<string, string | boolean | null> = {};
      for (const f of fields) body[f.name] = values[f.name]?.trim() || (f.required ? '' : null);
      if (complete) body.complete = true;
      const res = await saveSetup(body);
      setErrors({});
      await queryClient.invalidateQueries({ queryKey: ['account'] });
      await queryClient.invalidateQueries({ queryKey: ['users', 'me'] });
      onSaved?.(res.profile);
    } catch (err) {
      if (err instanceof ApiError && err.status === 422) {
        setErrors(Object.fromEntries(err.fieldErrors.map((f) => [f.field, f.message])));
        setFormError(t('onboarding.fixErrors'));
      } else if (err instanceof ApiError && err.serverMessage && err.status < 500) setFormError(err.serverMessage);
      else reportError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Box component="form" onSubmit={submit} noValidate sx={{ display: 'flex', flexDirection: 'column', gap: 3 }}>
      {formError && <Alert severity="error">{formError}</Alert>}
      {sections.map((s) => (
        <Box key={s} component="section" aria-labelledby={`setup-${s}`}>
          <Typography id={`setup-${s}`} variant="subtitle1" component="h2" sx={{ fontWeight: 600, mb: 1.5 }}>
            {t(`onboarding.sections.${s}`)}
          </Typography>
          <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, gap: 2 }}>
            {defs[s].map((f) => {
              const err = errors[f.name] ?? (submitted && f.required && !values[f.name]?.trim() ? t('validation.required') : undefined);
              const common = {
                label: t(`onboarding.fields.${f.name}`),
                name: f.name,
                value: values[f.name] ?? '',
                onChange: (e: { target: { value: string } }) => {
                  setValues((v) => ({ ...v, [f.name]: e.target.value }));
                  setErrors((x) => ({ ...x, [f.name]: undefined as unknown as string }));
                },
                required: f.required,
                error: !!err,
                helperText: err ?? (f.name === 'website' ? 'https://…' : f.name === 'account_name' ? t('onboarding.accountNameHint') : undefined),
                fullWidth: true,
                disabled: readOnly,
                autoComplete: f.autoComplete,
                sx: f.wide ? { gridColumn: { sm: '1 / -1' } } : undefined,
              };
              if (f.kind === 'select') {
                return (
                  <TextField key={f.name} select {...common}>
                    {!f.required && <MenuItem value="">—</MenuItem>}
                    {f.options!().map((o) => (
                      <MenuItem key={o.value} value={o.value}>
                        {o.label}
                      </MenuItem>
                    ))}
                  </TextField>
                );
              }
              return (
                <TextField
                  key={f.name}
                  {...common}
                  type={f.kind === 'date' ? 'date' : f.kind === 'email' ? 'email' : f.kind === 'tel' ? 'tel' : f.kind === 'url' ? 'url' : 'text'}
                  slotProps={f.kind === 'date' ? { inputLabel: { shrink: true } } : undefined}
                />
              );
            })}
          </Box>
        </Box>
      ))}
      {!readOnly && (
        <Box>
          <Button type="submit" variant="contained" disabled={busy}>
            {submitLabel ?? t('common.save', { defaultValue: 'Save' })}
          </Button>
        </Box>
      )}
    </Box>
  );
}
