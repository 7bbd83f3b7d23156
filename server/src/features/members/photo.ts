import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { AppContext } from '../../context.js';
import { AppError } from '../../http/errors.js';
import { M } from './messages.js';

export const PHOTO_MAX_MB = 5;
const SIZE = 256;
const FORMATS = new Set(['jpeg', 'png', 'webp']);

/** A member's photo sits with the organisation's files; one square JPEG, no metadata. */
const photoDir = (orgId: string, userId: string) => `org/${orgId}/members/${userId}`;
const photoKey = (orgId: string, userId: string) => `${photoDir(orgId, userId)}/photo.jpg`;

/** JPEG, PNG or WebP judged by content; cropped to a 256 px square around the centre, orientation applied, metadata dropped. */
export async function photoFrom(input: Buffer): Promise<Buffer> {
  try {
    const meta = await sharp(input).metadata();
    if (!meta.format || !FORMATS.has(meta.format)) throw new Error('format');
    return await sharp(input, { failOn: 'error' }).rotate().resize(SIZE, SIZE, { fit: 'cover' }).jpeg({ quality: 85 }).toBuffer();
  } catch {
    throw new AppError(422, M.photoNotImage, {}, 'photo');
  }
}

export function makePhotoService({ storage }: Pick<AppContext, 'storage'>) {
  return {
    /** The URL the web app loads it from (with a version, so a new photo is never served from a cache), or null. */
    urlOf(orgId: string, userId: string): string | null {
      const key = photoKey(orgId, userId);
      if (!storage.exists(key)) return null;
      const v = Math.round(fs.statSync(storage.pathOf(key)).mtimeMs);
      return `/account/api/members/${userId}/photo?v=${v}`;
    },
    file(orgId: string, userId: string): string | null {
      const key = photoKey(orgId, userId);
      return storage.exists(key) ? storage.pathOf(key) : null;
    },
    async save(orgId: string, userId: string, input: Buffer) {
      const data = await photoFrom(input);
      const tmp = storage.makeTempDir();
      fs.writeFileSync(path.join(tmp, 'photo.jpg'), data);
      storage.remove(photoDir(orgId, userId));
      await storage.commitDir(tmp, photoDir(orgId, userId));
    },
    remove(orgId: string, userId: string) {
      storage.remove(photoDir(orgId, userId));
    },
  };
}
