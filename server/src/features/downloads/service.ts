import path from 'node:path';
import yazl from 'yazl';
import type { AppContext } from '../../context.js';
import { AppError } from '../../http/errors.js';

/** A public path ('datasets/<id>/original.csv') names a file of the caller's organisation only. */
export function orgKey(orgId: string, publicPath: string): string {
  const norm = path.posix.normalize(publicPath).replace(/^\/+/, '');
  if (norm.startsWith('..') || norm.includes('/../') || !/^[\w.-]+(\/[\w.-]+)+$/.test(norm)) {
    throw new AppError(400, 'paths_forbidden', { path: publicPath });
  }
  return `org/${orgId}/${norm}`;
}

/** SPEC §7 Common 'download/file': stored files of the caller's organisation, one as it is or several in a zip. */
export function makeDownloadService({ storage }: Pick<AppContext, 'storage'>) {
  return {
    download(orgId: string, paths: string[]): { type: string; disposition: string; stream: NodeJS.ReadableStream } {
      const keys = paths.map((p) => ({ p, key: orgKey(orgId, p) }));
      for (const { p, key } of keys) if (!storage.exists(key)) throw new AppError(404, 'file_not_found', { path: p });
      if (keys.length === 1) {
        const name = path.posix.basename(keys[0].p);
        return { type: name.endsWith('.csv') ? 'text/csv' : 'application/octet-stream', disposition: `attachment; filename*=UTF-8''${encodeURIComponent(name)}`, stream: storage.readStream(keys[0].key) };
      }
      const zip = new yazl.ZipFile();
      for (const { p, key } of keys) zip.addFile(storage.pathOf(key), p);
      zip.end();
      return { type: 'application/zip', disposition: 'attachment; filename="download.zip"', stream: zip.outputStream };
    },
  };
}
