/**
 * SPEC §5 password rules, the same as the server's (server/src/auth/passwords.ts) and with the same texts:
 * at least 8 characters; at least 3 of lowercase, uppercase, digits, symbols; no part of the e-mail or name.
 */
export interface Person {
  email?: string;
  first_name?: string;
  last_name?: string;
}

export type PasswordRule = 'length' | 'classes' | 'personal';

/** i18n keys of the rule texts, in display order. */
export const PASSWORD_RULE_TEXT: Record<PasswordRule, string> = {
  length: 'password.tooShort',
  classes: 'password.classes',
  personal: 'password.personal',
};

export const PASSWORD_MIN_LENGTH = 8;

function personalParts(person: Person): string[] {
  return [
    ...(person.email ? person.email.toLowerCase().split(/[@._+-]/) : []),
    person.first_name?.toLowerCase(),
    person.last_name?.toLowerCase(),
  ].filter((p): p is string => !!p && p.length >= 3);
}

export function classCount(pw: string): number {
  return [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((r) => r.test(pw)).length;
}

/** Each rule: kept (true) or broken (false). */
export function checkPassword(pw: string, person: Person = {}): Record<PasswordRule, boolean> {
  const lower = pw.toLowerCase();
  return {
    length: pw.length >= PASSWORD_MIN_LENGTH,
    classes: classCount(pw) >= 3,
    personal: pw.length > 0 && !personalParts(person).some((p) => lower.includes(p)),
  };
}

/** The first broken rule, or null: the server answers with the same one. */
export function passwordProblem(pw: string, person: Person = {}): PasswordRule | null {
  const c = checkPassword(pw, person);
  if (!c.length) return 'length';
  if (!c.classes) return 'classes';
  if (!c.personal) return 'personal';
  return null;
}

export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const DIGITS_ONLY = /^\d+$/;
