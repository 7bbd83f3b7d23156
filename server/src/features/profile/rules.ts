import { z } from 'zod';
import type { LocalText } from '../../i18n/messages.js';
import { M } from './messages.js';

/** SPEC §9 organisation size bands. */
export const ORGANISATION_SIZES = ['under_10', '10_49', '50_149', '150_249', '250_999', '1000_plus'] as const;
export const GENDERS = ['male', 'female', 'other'] as const;
export const CURRENCIES = ['JPY', 'USD', 'EUR', 'GBP', 'CNY', 'KRW', 'TWD', 'SGD', 'THB', 'INR', 'AUD', 'CAD', 'CHF'] as const;
export const LANGUAGES = ['en-gb', 'ja-jp'] as const;

/** Every field of SPEC §3 Member / Account / Organisation that onboarding and the profile may set. */
export const SETUP_FIELDS = [
  'first_name',
  'middle_name',
  'last_name',
  'birth_date',
  'gender',
  'phone',
  'account_name',
  'currency',
  'country_code',
  'state_or_province',
  'city',
  'postal_code',
  'address',
  'department',
  'office_location',
  'organisation_name',
  'vat_number',
  'registration_number',
  'ceo',
  'organisation_email',
  'organisation_phone',
  'website',
  'organisation_size',
  'industry',
] as const;
export type SetupField = (typeof SETUP_FIELDS)[number];
export type SetupValues = Partial<Record<SetupField, string | null>>;

/** The organisation's own fields: SETUP_FIELDS from organisation_name on. */
export const ORGANISATION_FIELDS: SetupField[] = SETUP_FIELDS.slice(SETUP_FIELDS.indexOf('organisation_name'));

/** SPEC §5 'Required': what complete registration needs. */
export const REQUIRED_FOR_COMPLETION: SetupField[] = [
  'first_name',
  'last_name',
  'birth_date',
  'phone',
  'account_name',
  'country_code',
  'state_or_province',
  'city',
  'postal_code',
  'address',
  'organisation_name',
  'ceo',
  'organisation_email',
  'organisation_phone',
  'website',
  'organisation_size',
];

const NOT_DIGITS_ONLY: SetupField[] = ['first_name', 'middle_name', 'last_name', 'city', 'state_or_province', 'address', 'organisation_name', 'ceo'];
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/;
const PHONE = /^\+?[0-9][0-9 ()-]{5,22}$/;

export function validPhone(v: string): boolean {
  const digits = v.replace(/\D/g, '').length;
  return PHONE.test(v) && digits >= 7 && digits <= 15;
}
export const validPostCode = (v: string) => /^[A-Za-z0-9](?:[A-Za-z0-9 -]{0,8}[A-Za-z0-9])?$/.test(v) && /\d/.test(v) && v.length >= 3;
export const validEmail = (v: string) => EMAIL.test(v) && z.email().safeParse(v).success;
export function validUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && /^[^.\s]+(\.[^.\s]+)+$/.test(u.hostname) && !/\s/.test(v);
  } catch {
    return false;
  }
}
/** A real calendar date, not in the future, of someone aged 16 to 120. */
export function validBirthDate(v: string, today = new Date()): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return false;
  const age = today.getUTCFullYear() - y - (today.getUTCMonth() + 1 < mo || (today.getUTCMonth() + 1 === mo && today.getUTCDate() < d) ? 1 : 0);
  return age >= 16 && age <= 120;
}
export const validAccountName = (v: string) => /\p{L}/u.test(v) && /\p{Nd}/u.test(v);

const MAX: Partial<Record<SetupField, number>> = { address: 300, organisation_name: 200, website: 300, industry: 100 };

/**
 * SPEC §5 rules for the fields present in `v` (pure; also the web form's rules). With `complete`, every field
 * of REQUIRED_FOR_COMPLETION must be filled in `merged` (the stored values with `v` applied).
 */
export function setupProblems(v: SetupValues, opts: { complete?: boolean; merged?: SetupValues; today?: Date } = {}): { field: SetupField; message: LocalText; params?: Record<string, number> }[] {
  const out: { field: SetupField; message: LocalText; params?: Record<string, number> }[] = [];
  const merged = { ...(opts.merged ?? {}), ...v };
  for (const f of SETUP_FIELDS) {
    const present = f in v;
    const raw = merged[f];
    const val = typeof raw === 'string' ? raw.trim() : '';
    if (!val) {
      if ((present || opts.complete) && REQUIRED_FOR_COMPLETION.includes(f)) out.push({ field: f, message: M.required });
      continue;
    }
    if (!present) continue;
    const max = MAX[f] ?? 100;
    if (val.length > max) {
      out.push({ field: f, message: M.tooLong, params: { max } });
      continue;
    }
    if (NOT_DIGITS_ONLY.includes(f) && /^\d+$/.test(val)) out.push({ field: f, message: M.digitsOnly });
    else if (f === 'account_name' && !validAccountName(val)) out.push({ field: f, message: M.accountNameChars });
    else if (f === 'birth_date' && !validBirthDate(val, opts.today)) out.push({ field: f, message: M.birthDate });
    else if (f === 'phone' && !validPhone(val)) out.push({ field: f, message: M.phone });
    else if (f === 'organisation_phone' && !validPhone(val)) out.push({ field: f, message: M.orgPhone });
    else if (f === 'postal_code' && !validPostCode(val)) out.push({ field: f, message: M.postCode });
    else if (f === 'organisation_email' && !validEmail(val)) out.push({ field: f, message: M.orgEmail });
    else if (f === 'website' && !validUrl(val)) out.push({ field: f, message: M.website });
    else if (f === 'country_code' && !/^[A-Z]{2}$/.test(val)) out.push({ field: f, message: M.country });
    else if (f === 'organisation_size' && !(ORGANISATION_SIZES as readonly string[]).includes(val)) out.push({ field: f, message: M.size });
    else if (f === 'gender' && !(GENDERS as readonly string[]).includes(val)) out.push({ field: f, message: M.required });
    else if (f === 'currency' && !(CURRENCIES as readonly string[]).includes(val)) out.push({ field: f, message: M.required });
  }
  return out;
}
