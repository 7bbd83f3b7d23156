import { z } from 'zod';
import { page } from '../../http/responses.js';

/** Answers of the members' calls (/account/api/members...). */

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
