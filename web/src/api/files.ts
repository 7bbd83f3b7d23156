import { saveBlob } from '../lib/browser';
import { apiBlob } from './client';

/** SPEC §7 Common: POST /api/download/file {paths} → one file, or a zip of several; saved under its name. */
export async function downloadFiles(paths: string[], fallbackName = paths.length === 1 ? (paths[0].split('/').pop() ?? 'download') : 'download.zip'): Promise<void> {
  const { blob, fileName } = await apiBlob('/api/download/file', fallbackName, { method: 'POST', json: { paths } });
  saveBlob(blob, fileName);
}
