import { z } from 'zod';
import { BankAccount } from '../billing/schemas.js';

const source = z.enum(['settings', 'environment']).nullable().describe('Where the value in force comes from: stored in the app, or the environment variable');

/** The installation settings platform administrators change in the app. */
export const InstallationSettings = z
  .object({
    bank_account: BankAccount.nullable().describe('The platform bank account for transfers; null: bank transfer is refused'),
    bank_account_source: source,
    platform_review: z.boolean().describe('Whether hosted APIs wait for a platform administrator; off, submitting approves at once'),
    platform_review_source: z.enum(['settings', 'environment']),
    administrators: z.object({
      environment: z.array(z.string()).describe('MITATE_PLATFORM_ADMINS'),
      first_account: z.string().nullable().describe("The first account's e-mail when it is the administrator (MITATE_PLATFORM_ADMINS empty)"),
    }),
  })
  .meta({ id: 'InstallationSettings' });

const text = z.string().max(200);
export const settingsBody = z.object({
  bank_account: z
    .object({
      bank_name: text,
      bank_code: text,
      branch_name: text,
      branch_code: text,
      account_type: z.enum(['individual', 'organisation']),
      account_number: text,
      account_holder: text,
    })
    .nullable()
    .optional()
    .describe('null forgets the stored account (the environment one is in force again)'),
  platform_review: z.boolean().optional(),
});
