import { hash, verify, Algorithm } from '@node-rs/argon2';
import { passwordProblem as brokenRule, type Person, type PasswordRule } from '@mitate/rules';
import type { MessageKey } from '../i18n/messages.js';

export const hashPassword = (pw: string) => hash(pw, { algorithm: Algorithm.Argon2id });
export const verifyPassword = (stored: string, pw: string) => verify(stored, pw).catch(() => false);

const PROBLEM: Record<PasswordRule, MessageKey> = {
  length: 'password_too_short',
  classes: 'password_classes',
  personal: 'password_personal',
};

/** SPEC §5 password rules (@mitate/rules, as the web form checks them); the first broken rule's message, or null. */
export function passwordProblem(pw: string, person: Person = {}): MessageKey | null {
  const rule = brokenRule(pw, person);
  return rule ? PROBLEM[rule] : null;
}
