/**
 * SPEC §5 password rules: the rule itself is shared with the server (@mitate/rules password.ts), so the form's live
 * list and the server's answer agree; here are the i18n texts of each rule and the form's other patterns.
 */
import type { PasswordRule } from '@mitate/rules';

export { checkPassword, passwordProblem, type PasswordRule, type Person } from '@mitate/rules';

/** i18n keys of the rule texts, in display order. */
export const PASSWORD_RULE_TEXT: Record<PasswordRule, string> = {
  length: 'password.tooShort',
  classes: 'password.classes',
  personal: 'password.personal',
};

export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const DIGITS_ONLY = /^\d+$/;
