/**
 * SPEC §5 password rules, one implementation for the server's check and the web form's live list:
 * at least 8 characters; at least 3 of lowercase, uppercase, digits, symbols; no part of the e-mail or name.
 */
export interface Person {
  email?: string;
  first_name?: string;
  last_name?: string;
}

export type PasswordRule = 'length' | 'classes' | 'personal';

export const PASSWORD_MIN_LENGTH = 8;

/** The parts of the person a password may not contain: e-mail pieces and names of 3 characters or more. */
function personalParts(person: Person): string[] {
  return [
    ...(person.email ? person.email.toLowerCase().split(/[@._+-]/) : []),
    person.first_name?.toLowerCase(),
    person.last_name?.toLowerCase(),
  ].filter((p): p is string => !!p && p.length >= 3);
}

/** How many of lowercase, uppercase, digits and symbols the password has. */
export function classCount(pw: string): number {
  return [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((r) => r.test(pw)).length;
}

/** Each rule: kept (true) or broken (false). An empty password breaks no personal rule (it holds nothing). */
export function checkPassword(pw: string, person: Person = {}): Record<PasswordRule, boolean> {
  const lower = pw.toLowerCase();
  return {
    length: pw.length >= PASSWORD_MIN_LENGTH,
    classes: classCount(pw) >= 3,
    personal: pw.length > 0 && !personalParts(person).some((p) => lower.includes(p)),
  };
}

/** The first broken rule in the order above, or null. */
export function passwordProblem(pw: string, person: Person = {}): PasswordRule | null {
  const c = checkPassword(pw, person);
  if (!c.length) return 'length';
  if (!c.classes) return 'classes';
  if (!c.personal) return 'personal';
  return null;
}
