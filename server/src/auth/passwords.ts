import { hash, verify, Algorithm } from '@node-rs/argon2';
import type { MessageKey } from '../i18n/messages.js';

export const hashPassword = (pw: string) => hash(pw, { algorithm: Algorithm.Argon2id });
export const verifyPassword = (stored: string, pw: string) => verify(stored, pw).catch(() => false);

/** SPEC §5 password rules; returns the first broken rule, or null. Pure, shared by register and reset. */
export function passwordProblem(
  pw: string,
  person: { email?: string; first_name?: string; last_name?: string } = {},
): MessageKey | null {
  if (pw.length < 8) return 'password_too_short';
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((r) => r.test(pw)).length;
  if (classes < 3) return 'password_classes';
  const lower = pw.toLowerCase();
  const parts = [
    ...(person.email ? person.email.toLowerCase().split(/[@._+-]/) : []),
    person.first_name?.toLowerCase(),
    person.last_name?.toLowerCase(),
  ].filter((p): p is string => !!p && p.length >= 3);
  if (parts.some((p) => lower.includes(p))) return 'password_personal';
  return null;
}
