import type { FastifyInstance } from 'fastify';
import { AppError, ok } from '../../http/errors.js';
import { langOf, localize } from '../../i18n/messages.js';
import type { IdentityService } from './service.js';
import { z } from 'zod';
import { filePart } from '../../http/openapi.js';
import { replies } from '../../http/responses.js';
import { IdentityStatus, PaymentCheck } from './responses.js';
import { M } from './messages.js';

/** Identity verification (SPEC §4): upload front and back images, read the state, ask whether payment may proceed. */
export default async function identityRoutes(app: FastifyInstance, { identity }: { identity: IdentityService }) {
  app.get('/identity', { schema: { tags: ['identity'], summary: 'My identity verification state', response: replies({ 200: IdentityStatus }) } }, async (req) => ok(await identity.status(req.auth)));

  app.get('/identity/payment-check', { schema: { tags: ['identity'], summary: 'Whether payment may proceed (blocked until the identity is verified)', response: replies({ 200: PaymentCheck }) } }, async (req) => {
    const check = await identity.paymentCheck(req.auth);
    return ok({ ...check, message: check.message && localize(langOf(req.headers['accept-language']), check.message) });
  });

  app.post(
    '/identity',
    { schema: { tags: ['identity'], summary: 'Upload the ID: multipart with the image files "front" and "back" (JPEG or PNG)', consumes: ['multipart/form-data'], multipart: z.object({ front: filePart(), back: filePart() }), response: replies({ 201: IdentityStatus }) } },
    async (req, reply) => {
      const files: Record<string, Buffer> = {};
      const size = `${identity.maxMb} MB`;
      if (!req.isMultipart()) throw new AppError(422, M.idImagesRequired, {}, 'front');
      for await (const part of req.parts({ limits: { fileSize: identity.maxBytes, files: 2, fields: 5 } })) {
        if (part.type !== 'file') continue;
        if (part.fieldname !== 'front' && part.fieldname !== 'back') {
          part.file.resume();
          continue;
        }
        const buf = await part.toBuffer().catch((e: { code?: string }) => {
          if (e?.code === 'FST_REQ_FILE_TOO_LARGE') throw new AppError(413, M.idTooLarge, { size }, part.fieldname);
          throw e;
        });
        if (part.file.truncated) throw new AppError(413, M.idTooLarge, { size }, part.fieldname);
        if (buf.length) files[part.fieldname] = buf;
      }
      for (const side of ['front', 'back'] as const) if (!files[side]) throw new AppError(422, M.idImagesRequired, {}, side);
      const status = await identity.submit(req.auth, files.front, files.back);
      return reply.code(201).send(ok(status));
    },
  );
}
