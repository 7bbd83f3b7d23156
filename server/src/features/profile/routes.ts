import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ok } from '../../http/errors.js';
import { langOf, localize } from '../../i18n/messages.js';
import { M } from '../account/messages.js';
import { CURRENCIES, LANGUAGES } from '../account/rules.js';
import { accountSettings } from '../account/settings.js';
import { ensureSettings, loadProfile } from './repo.js';
import { replies } from '../../http/responses.js';
import { ProfileWithAdmin, Settings, SettingsSaved } from '../account/responses.js';

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
export default async function profileRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx;
  const admins = accountSettings().platformAdmins;

  r.get('/profile', { schema: { tags: ['profile'], summary: 'My profile: member, account and organisation fields, settings, identity state', response: replies({ 200: ProfileWithAdmin }) } }, async (req) => {
    const p = await loadProfile(db, req.auth.userId, req.auth.orgId);
    return ok({ ...p, platform_admin: admins.includes(req.auth.email.toLowerCase()) });
  });

  r.get('/settings', { schema: { tags: ['profile'], response: replies({ 200: Settings }) } }, async (req) => ok((await loadProfile(db, req.auth.userId, req.auth.orgId)).settings));

  r.put('/settings', { schema: { tags: ['profile'], summary: 'Language, currency, dark theme, 12/24-hour clock, time-zone offset', body: settingsBody, response: replies({ 200: SettingsSaved }) } }, async (req) => {
    const { language, ...rest } = req.body;
    const now = new Date().toISOString();
    if (language) await db.updateTable('users').set({ language }).where('id', '=', req.auth.userId).execute();
    if (Object.keys(rest).length) {
      await ensureSettings(db, req.auth.userId, req.auth.orgId);
      await db
        .updateTable('user_settings')
        .set({
          ...(rest.currency !== undefined ? { currency: rest.currency } : {}),
          ...(rest.dark_theme !== undefined ? { dark_theme: rest.dark_theme ? 1 : 0 } : {}),
          ...(rest.clock_24h !== undefined ? { clock_24h: rest.clock_24h ? 1 : 0 } : {}),
          ...(rest.tz_offset_minutes !== undefined ? { tz_offset_minutes: rest.tz_offset_minutes } : {}),
          updated_at: now,
        })
        .where('user_id', '=', req.auth.userId)
        .execute();
    }
    const p = await loadProfile(db, req.auth.userId, req.auth.orgId);
    return ok({ ...p.settings, message: localize(langOf(req.headers['accept-language']), M.accountUpdated) });
  });
}
