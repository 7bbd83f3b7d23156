import crypto from 'node:crypto';
import fs from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireRole } from '../../auth/guard.js';
import { AppError, ok, said } from '../../http/errors.js';
import { langOf, localize, type LocalText } from '../../i18n/messages.js';
import { M } from '../account/messages.js';
import { MEMBER_STATUSES, ROLES, SETUP_FIELDS, setupProblems, type SetupValues } from '../account/rules.js';
import { makeAccountService } from '../account/service.js';
import { loadProfile, saveSetup, touchesOrganisation } from '../profile/repo.js';
import { makePhotoService, PHOTO_MAX_MB } from './photo.js';
import { fileReplies, replies } from '../../http/responses.js';
import { InvitationCancelled, Invited, Member, MemberDetails, MemberPage, MemberUpdated, PhotoSaved, SetupSaved } from '../account/responses.js';

const idParams = z.object({ id: z.string().max(64) });
const inviteBody = z.object({
  email: z.email(said('invalid_email')).max(254),
  role: z.enum(ROLES),
  first_name: z.string().trim().min(1, said('required')).max(100).refine((v) => !/^\d+$/.test(v), said('digits_only')),
  last_name: z.string().trim().min(1, said('required')).max(100).refine((v) => !/^\d+$/.test(v), said('digits_only')),
});
const updateBody = z.object({ role: z.enum(ROLES).optional(), status: z.enum(MEMBER_STATUSES).optional() });
const setupBody = z.object({
  ...Object.fromEntries(SETUP_FIELDS.map((f) => [f, z.string().max(1000).nullable().optional()])),
  complete: z.boolean().optional(),
}) as z.ZodType<SetupValues & { complete?: boolean }>;

const manage = requireRole('owner', 'admin');

/** 422 with one entry per broken field (SPEC §8: the account client joins the list). */
export function sendFieldErrors(req: FastifyRequest, reply: FastifyReply, problems: { field: string; message: LocalText; params?: Record<string, number> }[]) {
  const lang = langOf(req.headers['accept-language']);
  return reply.code(422).send({ detail: problems.map((p) => ({ loc: ['body', p.field], msg: localize(lang, p.message, p.params), type: 'value_error' })) });
}

/** SPEC §7 Account client: GET members, GET members/{id}, POST members, PUT /members/{id} (one field), PUT members/setup. */
export default async function memberRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx;
  const account = makeAccountService(app.ctx);
  const cols = ['id', 'email', 'first_name', 'last_name', 'role', 'status', 'created_at'] as const;
  const lang = (req: FastifyRequest) => langOf(req.headers['accept-language']);
  const photos = makePhotoService(app.ctx);
  const withPhoto = <T extends { id: string }>(orgId: string, m: T) => ({ ...m, photo: photos.urlOf(orgId, m.id) });

  r.get('/members', { schema: { tags: ['members'], response: replies({ 200: MemberPage }) } }, async (req) => {
    const items = await db.selectFrom('users').select(cols).where('organisation_id', '=', req.auth.orgId).orderBy('created_at').execute();
    return ok({ items: items.map((m) => withPhoto(req.auth.orgId, m)), total: items.length });
  });

  r.put('/members/setup', { schema: { tags: ['members'], summary: 'Complete registration / update my profile (SPEC §3 Member, Account, Organisation fields)', body: setupBody, response: replies({ 200: SetupSaved }) } }, async (req, reply) => {
    const { complete, ...values } = req.body;
    if (touchesOrganisation(values) && !['owner', 'admin'].includes(req.auth.role)) throw new AppError(403, 'forbidden');
    const current = await loadProfile(db, req.auth.userId, req.auth.orgId);
    const problems = setupProblems(values, { complete, merged: current.values });
    if (problems.length) return sendFieldErrors(req, reply, problems);
    await saveSetup(db, req.auth.userId, req.auth.orgId, values, { ip: req.ip, complete });
    const profile = await loadProfile(db, req.auth.userId, req.auth.orgId);
    return ok({ message: localize(lang(req), M.accountUpdated), profile });
  });

  r.get('/members/:id', { schema: { tags: ['members'], params: idParams, response: replies({ 200: z.union([MemberDetails, Member]) }) } }, async (req) => {
    const item = await db.selectFrom('users').select(cols).where('organisation_id', '=', req.auth.orgId).where('id', '=', req.params.id).executeTakeFirst();
    if (!item) throw new AppError(404, 'not_found');
    // Personal details are for the person and those who manage members.
    if (item.id !== req.auth.userId && !['owner', 'admin'].includes(req.auth.role)) return ok(withPhoto(req.auth.orgId, item));
    const p = await db.selectFrom('member_profiles').selectAll().where('user_id', '=', item.id).executeTakeFirst();
    return ok({
      ...item,
      middle_name: p?.middle_name ?? null,
      birth_date: p?.birth_date ?? null,
      gender: p?.gender ?? null,
      phone: p?.phone ?? null,
      photo: photos.urlOf(req.auth.orgId, item.id),
      ip_address: p?.ip_address ?? null,
      country_code: p?.country_code ?? null,
      state_or_province: p?.state_or_province ?? null,
      city: p?.city ?? null,
      postal_code: p?.postal_code ?? null,
      address: p?.address ?? null,
    });
  });

  r.post('/members', { preHandler: manage, schema: { tags: ['members'], summary: 'Invite a member (e-mail, role, first and last name)', body: inviteBody, response: replies({ 200: Invited, 201: Invited }) } }, async (req, reply) => {
    const email = req.body.email.trim().toLowerCase();
    if (req.body.role === 'owner' && req.auth.role !== 'owner') throw new AppError(403, M.onlyOwnerGrantsOwner);
    const existing = await db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    const inviter = await db.selectFrom('users').select(['first_name', 'last_name']).where('id', '=', req.auth.userId).executeTakeFirstOrThrow();
    const inviterName = `${inviter.first_name} ${inviter.last_name}`.trim();
    if (existing) {
      // Inviting again someone invited here and not yet joined sends a fresh link; anyone else is refused.
      if (existing.organisation_id !== req.auth.orgId || existing.status !== 'invited') throw new AppError(409, M.alreadyMember);
      await db
        .updateTable('users')
        .set({ role: req.body.role, first_name: req.body.first_name.trim(), last_name: req.body.last_name.trim() })
        .where('id', '=', existing.id)
        .execute();
      await account.sendInvitation({ ...existing, first_name: req.body.first_name.trim(), last_name: req.body.last_name.trim() }, inviterName, lang(req));
      return ok({ id: existing.id, email, message: localize(lang(req), M.invited, { email }) });
    }
    const user = {
      id: crypto.randomUUID(),
      organisation_id: req.auth.orgId,
      email,
      password_hash: null,
      first_name: req.body.first_name.trim(),
      last_name: req.body.last_name.trim(),
      role: req.body.role,
      status: 'invited',
      email_verified_at: null,
      language: 'en-gb',
      department: null,
      office_location: null,
      created_at: new Date().toISOString(),
    };
    await db.insertInto('users').values(user).execute();
    await account.sendInvitation(user, inviterName, lang(req));
    return reply.code(201).send(ok({ id: user.id, email, message: localize(lang(req), M.invited, { email }) }));
  });

  // My photo (SPEC §3 Member 'photo'): anyone may set their own, members of the organisation see it.
  r.put(
    '/members/photo',
    { schema: { tags: ['members'], summary: `Set my photo: multipart with the image file "photo" (JPEG, PNG or WebP, under ${PHOTO_MAX_MB} MB)`, consumes: ['multipart/form-data'], response: replies({ 200: PhotoSaved }) } },
    async (req) => {
      const size = `${PHOTO_MAX_MB} MB`;
      if (!req.isMultipart()) throw new AppError(422, M.photoRequired, {}, 'photo');
      let data: Buffer | null = null;
      for await (const part of req.parts({ limits: { fileSize: PHOTO_MAX_MB * 1024 * 1024, files: 1, fields: 2 } })) {
        if (part.type !== 'file') continue;
        if (part.fieldname !== 'photo') {
          part.file.resume();
          continue;
        }
        data = await part.toBuffer().catch((e: { code?: string }) => {
          if (e?.code === 'FST_REQ_FILE_TOO_LARGE') throw new AppError(413, M.idTooLarge, { size }, 'photo');
          throw e;
        });
        if (part.file.truncated) throw new AppError(413, M.idTooLarge, { size }, 'photo');
      }
      if (!data?.length) throw new AppError(422, M.photoRequired, {}, 'photo');
      await photos.save(req.auth.orgId, req.auth.userId, data);
      return ok({ photo: photos.urlOf(req.auth.orgId, req.auth.userId), message: localize(lang(req), M.photoSaved) });
    },
  );
  r.delete('/members/photo', { schema: { tags: ['members'], summary: 'Remove my photo', response: replies({ 200: PhotoSaved }) } }, async (req) => {
    photos.remove(req.auth.orgId, req.auth.userId);
    return ok({ photo: null, message: localize(lang(req), M.photoRemoved) });
  });
  r.get('/members/:id/photo', { schema: { tags: ['members'], summary: "A member's photo (JPEG)", params: idParams, response: fileReplies('image/jpeg', 'The photo, a 256 px square JPEG') } }, async (req, reply) => {
    const member = await db.selectFrom('users').select('id').where('organisation_id', '=', req.auth.orgId).where('id', '=', req.params.id).executeTakeFirst();
    const file = member ? photos.file(req.auth.orgId, member.id) : null;
    if (!file) throw new AppError(404, 'not_found');
    // The URL carries a version, so the browser may keep it; private: it is behind sign-in.
    return reply.type('image/jpeg').header('Cache-Control', 'private, max-age=86400').send(fs.createReadStream(file));
  });

  // Cancelling an invitation removes the invited person (they have no data yet); the link they were sent stops working.
  r.delete('/members/:id', { preHandler: manage, schema: { tags: ['members'], summary: 'Cancel an invitation that has not been accepted', params: idParams, response: replies({ 200: InvitationCancelled }) } }, async (req) => {
    const target = await db.selectFrom('users').select(['id', 'email', 'status', 'role']).where('organisation_id', '=', req.auth.orgId).where('id', '=', req.params.id).executeTakeFirst();
    if (!target) throw new AppError(404, 'not_found');
    if (target.status !== 'invited') throw new AppError(409, M.notAnInvitation);
    if (target.role === 'owner' && req.auth.role !== 'owner') throw new AppError(403, M.onlyOwnerGrantsOwner);
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('account_tokens').where('user_id', '=', target.id).execute();
      await trx.deleteFrom('users').where('id', '=', target.id).where('status', '=', 'invited').execute();
    });
    return ok({ id: target.id, message: localize(lang(req), M.invitationCancelled, { email: target.email }) });
  });

  r.put('/members/:id', { preHandler: manage, schema: { tags: ['members'], summary: 'Change one field of a member: role or status', params: idParams, body: updateBody, response: replies({ 200: MemberUpdated }) } }, async (req) => {
    const fields = Object.keys(req.body).filter((k) => (req.body as Record<string, unknown>)[k] !== undefined);
    if (fields.length !== 1) throw new AppError(422, M.oneField, {}, fields[1] ?? 'role');
    const target = await db.selectFrom('users').selectAll().where('organisation_id', '=', req.auth.orgId).where('id', '=', req.params.id).executeTakeFirst();
    if (!target) throw new AppError(404, 'not_found');
    if (target.id === req.auth.userId) throw new AppError(403, M.notYourself);
    if ((target.role === 'owner' || req.body.role === 'owner') && req.auth.role !== 'owner') throw new AppError(403, M.onlyOwnerGrantsOwner);
    const now = new Date().toISOString();
    if (req.body.role) {
      await db.updateTable('users').set({ role: req.body.role }).where('id', '=', target.id).execute();
    } else if (req.body.status) {
      if (target.status === 'invited' && req.body.status === 'active') throw new AppError(422, M.accountNotActivated, {}, 'status');
      if (target.role === 'owner' && req.body.status === 'disabled') {
        const owners = await db.selectFrom('users').select('id').where('organisation_id', '=', req.auth.orgId).where('role', '=', 'owner').where('status', '=', 'active').execute();
        if (owners.filter((o) => o.id !== target.id).length === 0) throw new AppError(422, M.lastOwner, {}, 'status');
      }
      await db.updateTable('users').set({ status: req.body.status }).where('id', '=', target.id).execute();
      // Disabling ends the member's sessions now; their access tokens are refused by the guard at once.
      if (req.body.status === 'disabled') {
        await db.updateTable('refresh_tokens').set({ revoked_at: now }).where('user_id', '=', target.id).where('revoked_at', 'is', null).execute();
        // Its sessions end too, so re-enabling the account does not revive tokens issued before.
        await db.updateTable('auth_sessions').set({ ended_at: now }).where('user_id', '=', target.id).where('ended_at', 'is', null).execute();
      }
    }
    const item = await db.selectFrom('users').select(cols).where('id', '=', target.id).executeTakeFirstOrThrow();
    return ok({ ...item, message: localize(lang(req), M.memberUpdated) });
  });
}

