import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { AppContext } from '../../context.js';
import { AppError } from '../../http/errors.js';
import type { IdentityState } from './db.js';
import * as repo from './repo.js';
import { M } from './messages.js';

/** Stored outside every organisation's public file space: only platform administrators read them. */
export const identityKey = (id: string) => `private/identity/${id}`;

/**
 * Re-encodes an uploaded ID image: only JPEG or PNG (judged by content, not name), orientation applied,
 * every metadata block (EXIF, GPS, XMP, ICC) dropped, at most 4000 px on the long side.
 */
export async function reencode(input: Buffer): Promise<{ data: Buffer; format: 'jpeg' | 'png' }> {
  let meta: Awaited<ReturnType<ReturnType<typeof sharp>['metadata']>>;
  try {
    meta = await sharp(input).metadata();
  } catch {
    throw new AppError(422, M.idNotImage, {}, 'file');
  }
  if (meta.format !== 'jpeg' && meta.format !== 'png') throw new AppError(422, M.idNotImage, {}, 'file');
  const img = sharp(input, { failOn: 'error' }).rotate().resize({ width: 4000, height: 4000, fit: 'inside', withoutEnlargement: true });
  try {
    const data = meta.format === 'png' ? await img.png().toBuffer() : await img.jpeg({ quality: 90 }).toBuffer();
    return { data, format: meta.format };
  } catch {
    throw new AppError(422, M.idNotImage, {}, 'file');
  }
}

export function makeIdentityService(ctx: AppContext) {
  const { db, storage } = ctx;
  const settings = ctx.config.account;

  const latest = (orgId: string, userId: string) => repo.latest(db, orgId, userId);

  return {
    maxBytes: settings.idMaxMb * 1024 * 1024,
    maxMb: settings.idMaxMb,

    /** The state of SPEC §4: not_done (payment blocked), under_review, done, or rejected with a reason. */
    async status(auth: { userId: string; orgId: string }) {
      const row = await latest(auth.orgId, auth.userId);
      return { state: row?.state ?? 'not_done', reason: row?.reason ?? null, submitted_at: row?.submitted_at ?? null, reviewed_at: row?.reviewed_at ?? null };
    },

    async submit(auth: { userId: string; orgId: string }, front: Buffer, back: Buffer) {
      const current = await latest(auth.orgId, auth.userId);
      if (current?.state === 'done') throw new AppError(409, M.idAlreadyDone);
      if (current?.state === 'under_review') throw new AppError(409, M.idUnderReview);
      const [f, b] = [await reencode(front), await reencode(back)];
      const id = crypto.randomUUID();
      const tmp = storage.makeTempDir();
      const front_key = `${identityKey(id)}/front.${f.format === 'png' ? 'png' : 'jpg'}`;
      const back_key = `${identityKey(id)}/back.${b.format === 'png' ? 'png' : 'jpg'}`;
      fs.writeFileSync(path.join(tmp, path.basename(front_key)), f.data, { mode: 0o600 });
      fs.writeFileSync(path.join(tmp, path.basename(back_key)), b.data, { mode: 0o600 });
      await storage.commitDir(tmp, identityKey(id));
      try {
        await repo.insert(db, { id, organisation_id: auth.orgId, user_id: auth.userId, state: 'under_review', front_key, back_key, reason: null, submitted_at: new Date().toISOString(), reviewed_at: null, reviewed_by: null });
      } catch (e) {
        storage.remove(identityKey(id));
        throw e;
      }
      return this.status(auth);
    },

    /** SPEC §4 payment check: blocked until the identity is verified; the message says why, in the caller's language. */
    async paymentCheck(auth: { userId: string; orgId: string }) {
      const s = await this.status(auth);
      const message = s.state === 'done' ? null : s.state === 'under_review' ? M.idUnderReview : M.verifyBeforePaying;
      return { allowed: s.state === 'done', state: s.state, message };
    },

    /** Whether the organisation has verified its identity (SPEC §4: a hosted API is approved only then). */
    verified: (orgId: string) => repo.verified(db, orgId),
    /** The organisation's identity for billing: done, under review or not done (SPEC §4: payment waits for done). */
    orgState: (orgId: string) => repo.orgState(db, orgId),

    // ---- the platform administrators' review (across organisations by design) ----
    list: (state: IdentityState | 'all') => repo.list(db, state),
    byId: (id: string) => repo.byId(db, id),
    decide: (id: string, d: { state: IdentityState; reason: string | null; reviewed_by: string }) => repo.decide(db, id, { ...d, reviewed_at: new Date().toISOString() }),
  };
}

export type IdentityService = ReturnType<typeof makeIdentityService>;
