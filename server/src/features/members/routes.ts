import fs from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireRole } from '../../auth/guard.js';
import { AppError, ok, said } from '../../http/errors.js';
import { langOf, localize, type LocalText } from '../../i18n/messages.js';
import { MEMBER_STATUSES, ROLES } from '../account/rules.js';
import { SETUP_FIELDS, type SetupValues } from '../profile/rules.js';
import type { ProfileService } from '../profile/service.js';
import { PHOTO_MAX_MB } from './photo.js';
import type { MembersService } from './service.js';
import { fileReplies, replies } from '../../http/responses.js';
import { InvitationCancelled, Invited, Member, MemberDetails, MemberPage, MemberUpdated, PhotoSaved } from './responses.js';
import { SetupSaved } from '../profile/responses.js';
import { M } from './messages.js';
import { M as ProfileM } from '../profile/messages.js';

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
export default async function memberRoutes(app: FastifyInstance, { members, profile }: { members: MembersService; profile: ProfileService }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const lang = (req: FastifyRequest) => langOf(req.headers['accept-language']);
  const { photos } = members;

  r.get('/members', { schema: { tags: ['members'], response: replies({ 200: MemberPage }) } }, async (req) => ok(await members.list(req.auth.orgId)));

  r.put('/members/setup', { schema: { tags: ['members'], summary: 'Complete registration / update my profile (SPEC §3 Member, Account, Organisation fields)', body: setupBody, response: replies({ 200: SetupSaved }) } }, async (req, reply) => {
    const { complete, ...values } = req.body;
    const saved = await profile.saveSetup({ ...req.auth, ip: req.ip }, values, complete);
    if (saved.problems) return sendFieldErrors(req, reply, saved.problems);
    return ok({ message: localize(lang(req), ProfileM.accountUpdated), profile: saved.profile });
  });

  r.get('/members/:id', { schema: { tags: ['members'], params: idParams, response: replies({ 200: z.union([MemberDetails, Member]) }) } }, async (req) =>
    ok(await members.details(req.auth, req.params.id)),
  );

  r.post('/members', { preHandler: manage, schema: { tags: ['members'], summary: 'Invite a member (e-mail, role, first and last name)', body: inviteBody, response: replies({ 200: Invited, 201: Invited }) } }, async (req, reply) => {
    const { id, email, created } = await members.invite(req.auth, req.body, lang(req));
    return reply.code(created ? 201 : 200).send(ok({ id, email, message: localize(lang(req), M.invited, { email }) }));
  });

  // My photo (SPEC §3 Member 'photo'): anyone may set their own, members of the organisation see it.
  r.put(
    '/members/photo',
    { schema: { tags: ['members'], summary: `Set my photo: multipart with the image file "photo" (JPEG, PNG or WebP, under ${PHOTO_MAX_MB} MB)`, consumes: ['multipart/form-data'], response: replies({ 200: PhotoSaved }) } },
    async (req) => {
      await photos.save(req.auth.orgId, req.auth.userId, await photoUpload(req));
      return ok({ photo: photos.urlOf(req.auth.orgId, req.auth.userId), message: localize(lang(req), M.photoSaved) });
    },
  );
  r.delete('/members/photo', { schema: { tags: ['members'], summary: 'Remove my photo', response: replies({ 200: PhotoSaved }) } }, async (req) => {
    photos.remove(req.auth.orgId, req.auth.userId);
    return ok({ photo: null, message: localize(lang(req), M.photoRemoved) });
  });
  r.get('/members/:id/photo', { schema: { tags: ['members'], summary: "A member's photo (JPEG)", params: idParams, response: fileReplies('image/jpeg', 'The photo, a 256 px square JPEG') } }, async (req, reply) => {
    const file = await members.photoFile(req.auth.orgId, req.params.id);
    if (!file) throw new AppError(404, 'not_found');
    // The URL carries a version, so the browser may keep it; private: it is behind sign-in.
    return reply.type('image/jpeg').header('Cache-Control', 'private, max-age=86400').send(fs.createReadStream(file));
  });

  r.delete('/members/:id', { preHandler: manage, schema: { tags: ['members'], summary: 'Cancel an invitation that has not been accepted', params: idParams, response: replies({ 200: InvitationCancelled }) } }, async (req) => {
    const { id, email } = await members.cancelInvitation(req.auth, req.params.id);
    return ok({ id, message: localize(lang(req), M.invitationCancelled, { email }) });
  });

  r.put('/members/:id', { preHandler: manage, schema: { tags: ['members'], summary: 'Change one field of a member: role or status', params: idParams, body: updateBody, response: replies({ 200: MemberUpdated }) } }, async (req) => {
    const fields = Object.keys(req.body).filter((k) => (req.body as Record<string, unknown>)[k] !== undefined);
    if (fields.length !== 1) throw new AppError(422, M.oneField, {}, fields[1] ?? 'role');
    const item = await members.update(req.auth, req.params.id, req.body);
    return ok({ ...item, message: localize(lang(req), M.memberUpdated) });
  });
}

/** The one image file "photo" of a multipart upload, within the size limit. */
async function photoUpload(req: FastifyRequest): Promise<Buffer> {
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
      if (e?.code === 'FST_REQ_FILE_TOO_LARGE') throw new AppError(413, M.photoTooLarge, { size }, 'photo');
      throw e;
    });
    if (part.file.truncated) throw new AppError(413, M.photoTooLarge, { size }, 'photo');
  }
  if (!data?.length) throw new AppError(422, M.photoRequired, {}, 'photo');
  return data;
}
