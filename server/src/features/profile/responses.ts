import { z } from 'zod';
// Declared before IdentityStatus, as the OpenAPI document lists the components in the order they are declared.
import { Settings } from './settings-answer.js';
import { IdentityStatus } from '../identity/responses.js';
import { SETUP_FIELDS } from './rules.js';

/** Answers of the profile and settings calls, and of PUT members/setup. */

export { Settings };

export const SetupValues = z.object(Object.fromEntries(SETUP_FIELDS.map((f) => [f, z.string().nullable().optional()])) as Record<(typeof SETUP_FIELDS)[number], z.ZodOptional<z.ZodNullable<z.ZodString>>>);

export const Profile = z
  .object({
    id: z.string(),
    email: z.string(),
    role: z.string(),
    status: z.string(),
    created_at: z.string(),
    has_password: z.boolean(),
    values: SetupValues,
    registration_complete: z.boolean(),
    missing: z.array(z.string()),
    settings: Settings,
    identity: IdentityStatus,
  })
  .meta({ id: 'Profile' });

export const ProfileWithAdmin = Profile.extend({ platform_admin: z.boolean(), platform_admin_reason: z.enum(['environment', 'first_account']).nullable() }).meta({ id: 'MyProfile' });

export const SetupSaved = z.object({ message: z.string(), profile: Profile }).meta({ id: 'SetupSaved' });

export const SettingsSaved = Settings.extend({ message: z.string() }).meta({ id: 'SettingsSaved' });
