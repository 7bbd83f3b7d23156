import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ok } from '../../http/errors.js';
import { langOf, localize } from '../../i18n/messages.js';
import { CURRENCIES, LANGUAGES } from './rules.js';
import type { ProfileService } from './service.js';
import { replies } from '../../http/responses.js';
import { ProfileWithAdmin, Settings, SettingsSaved } from './responses.js';
import { M } from './messages.js';

const settingsBody = z
  .object({
    language: z.enum(LANGUAGES).optional(),
    currency: z.enum(CURRENCIES).optional(),
    dark_theme: z.boolean().optional(),
    clock_24h: z.boolean().optional(),
    // Whole quarter hours from UTC-12:00 to UTC+14:00.
    tz_offset_minutes: z
      .number()
      .int()
      .min(-720)
      .max(840)
      .refine((v) => v % 15 === 0, 'The offset must be a whole number of quarter hours.')
      .optional(),
  })
  .strict();

/** The profile page (/profile): my whole profile, and my settings (SPEC §3 Account, §9). */
export default async function profileRoutes(app: FastifyInstance, { profile }: { profile: ProfileService }) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/profile', { schema: { tags: ['profile'], summary: 'My profile: member, account and organisation fields, settings, identity state', response: replies({ 200: ProfileWithAdmin }) } }, async (req) =>
    ok(await profile.mine(req.auth)),
  );

  r.get('/settings', { schema: { tags: ['profile'], response: replies({ 200: Settings }) } }, async (req) => ok(await profile.settings(req.auth)));

  r.put('/settings', { schema: { tags: ['profile'], summary: 'Language, currency, dark theme, 12/24-hour clock, time-zone offset', body: settingsBody, response: replies({ 200: SettingsSaved }) } }, async (req) => {
    const settings = await profile.saveSettings(req.auth, req.body);
    return ok({ ...settings, message: localize(langOf(req.headers['accept-language']), M.accountUpdated) });
  });
}
