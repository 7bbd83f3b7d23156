import { z } from 'zod';
import { page, storedEnum } from '../../http/responses.js';
import { SETUP_FIELDS } from './rules.js';

/** Answers of the account client's calls (/account/api) and of GET /api/users/me. */

export const Me = z
  .object({
    id: z.string(),
    email: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    name: z.string(),
    role: z.string().describe('owner, admin, member or viewer'),
    status: z.string(),
    language: z.string().nullable(),
    department: z.string().nullable(),
    office_location: z.string().nullable(),
    organisation: z.object({ id: z.string(), name: z.string() }).nullable(),
    photo: z.string().nullable().describe('Where to load my photo from (with the bearer), or null'),
    links: z.object({ visualizer_url: z.string().nullable(), test_site_url: z.string().nullable(), show_test_site: z.boolean() }),
  })
  .meta({ id: 'Me' });

export const Tokens = z
  .object({ access_token: z.string(), refresh_token: z.string(), expires_in: z.number().int(), token_type: z.string() })
  .meta({ id: 'Tokens' });

export const AuthOptions = z
  .object({ local_login: z.boolean(), sso: z.boolean(), tenant: z.string().nullable().optional(), email_verification_required: z.boolean() })
  .meta({ id: 'AuthOptions' });

export const Registered = z.object({ id: z.string().nullable().optional(), email: z.string(), verification_required: z.boolean() });

export const Invitation = z.object({ email: z.string(), first_name: z.string(), last_name: z.string(), organisation_name: z.string() }).meta({ id: 'Invitation' });

export const Member = z
  .object({
    id: z.string(),
    email: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    role: z.string(),
    status: z.string(),
    created_at: z.string(),
    photo: z.string().nullable().optional().describe('Where to load the photo from (with the bearer), or null'),
  })
  .meta({ id: 'Member' });

/** The person themself and those who manage members also see the personal details. */
export const MemberDetails = Member.extend({
  middle_name: z.string().nullable().optional(),
  birth_date: z.string().nullable().optional(),
  gender: z.string().nullable().optional(),
  phone: z.string().nullable().optional(),
  ip_address: z.string().nullable().optional(),
  country_code: z.string().nullable().optional(),
  state_or_province: z.string().nullable().optional(),
  city: z.string().nullable().optional(),
  postal_code: z.string().nullable().optional(),
  address: z.string().nullable().optional(),
}).meta({ id: 'MemberDetails' });

export const MemberPage = page(Member);
export const Invited = z.object({ id: z.string(), email: z.string(), message: z.string() });
export const MemberUpdated = Member.extend({ message: z.string() });
export const PhotoSaved = z.object({ photo: z.string().nullable(), message: z.string() });
export const InvitationCancelled = z.object({ id: z.string(), message: z.string() });

export const Settings = z
  .object({ language: z.string().nullable(), currency: z.string(), dark_theme: z.boolean(), clock_24h: z.boolean(), tz_offset_minutes: z.number().int() })
  .meta({ id: 'Settings' });

export const IdentityStatus = z
  .object({ state: storedEnum(['not_done', 'under_review', 'done', 'rejected']), reason: z.string().nullable(), submitted_at: z.string().nullable(), reviewed_at: z.string().nullable() })
  .meta({ id: 'IdentityStatus' });

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

export const ProfileWithAdmin = Profile.extend({ platform_admin: z.boolean() }).meta({ id: 'MyProfile' });
export const SetupSaved = z.object({ message: z.string(), profile: Profile }).meta({ id: 'SetupSaved' });
export const SettingsSaved = Settings.extend({ message: z.string() }).meta({ id: 'SettingsSaved' });
export const PaymentCheck = z.object({ allowed: z.boolean(), state: z.string(), message: z.string().nullable() });

export const IdentityReviewItem = z.object({
  id: z.string(),
  state: z.string(),
  reason: z.string().nullable(),
  submitted_at: z.string(),
  reviewed_at: z.string().nullable(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  organisation_name: z.string(),
});
export const IdentityReviewPage = page(IdentityReviewItem);
export const IdentityReviewed = z.object({ id: z.string(), state: z.string(), reason: z.string().nullable() });
