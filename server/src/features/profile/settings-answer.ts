import { z } from 'zod';

/** My display settings (SPEC §3 Account, §9), as GET /settings answers them. */
export const Settings = z
  .object({ language: z.string().nullable(), currency: z.string(), dark_theme: z.boolean(), clock_24h: z.boolean(), tz_offset_minutes: z.number().int() })
  .meta({ id: 'Settings' });
