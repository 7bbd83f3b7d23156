import { z } from 'zod';

/** Answers of the account client's sign-in calls (/account/api/auth/...) and of GET /api/users/me. */

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
