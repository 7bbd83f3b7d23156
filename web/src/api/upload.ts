import { accessToken, baseHeaders, raise, refreshSession, unwrap, type RequestOptions } from './client';
import { fillPath, type PathParams, type PostPath } from './typed';
import type { Answer } from './types';
import { ApiError } from './errors';
import { clearSession, getSession } from './session';
import { currentLocation, navigateTo } from '../lib/navigation';
import { showMessage } from '../lib/feedback';
import { describeError } from './errors';

export interface UploadOptions {
  /** upload progress, 0..1 */
  onProgress?: (fraction: number) => void;
  /** called once every byte is sent: the server is now processing */
  onUploaded?: () => void;
  signal?: AbortSignal;
  silent?: boolean;
}

interface XhrResult {
  status: number;
  body: unknown;
}

function sendOnce(path: string, form: FormData, token: string | null, opts: UploadOptions): Promise<XhrResult> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    for (const [k, v] of Object.entries(baseHeaders(token))) xhr.setRequestHeader(k, v);
    let uploadedSignalled = false;
    const uploaded = () => {
      if (!uploadedSignalled) {
        uploadedSignalled = true;
        opts.onProgress?.(1);
        opts.onUploaded?.();
      }
    };
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) {
        const f = Math.min(1, e.loaded / e.total);
        if (f >= 1) uploaded();
        else opts.onProgress?.(f);
      }
    };
    xhr.upload.onload = uploaded;
    xhr.onload = () => {
      uploaded();
      let body: unknown = xhr.responseText;
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : null;
      } catch {
        /* not JSON */
      }
      resolve({ status: xhr.status, body });
    };
    xhr.onerror = () => reject(new ApiError(0, null));
    xhr.onabort = () => reject(new ApiError(0, null, true));
    if (opts.signal) {
      if (opts.signal.aborted) {
        reject(new ApiError(0, null, true));
        return;
      }
      opts.signal.addEventListener('abort', () => xhr.abort(), { once: true });
    }
    xhr.send(form);
  });
}

/**
 * Multipart upload with progress events (fetch cannot report upload progress).
 * Same rules as the fetch client: fresh bearer, one refresh and retry on 401, SPEC §8 errors.
 */
async function uploadMultipart<T>(path: string, form: FormData, opts: UploadOptions = {}): Promise<T> {
  const reqOpts: RequestOptions = { silent: opts.silent };
  const token = await accessToken(reqOpts);
  const attempt = async (t: string | null) => {
    try {
      return await sendOnce(path, form, t, opts);
    } catch (e) {
      if (e instanceof ApiError && !e.silenced && !opts.silent) showMessage(describeError(0, null));
      throw e;
    }
  };
  let result = await attempt(token);
  if (result.status === 401) {
    let next: string | null = null;
    try {
      next = getSession() ? (await refreshSession()).access_token : null;
    } catch (e) {
      if (e instanceof ApiError && e.status === 0) {
        if (!opts.silent) showMessage(describeError(0, null));
        throw e;
      }
    }
    if (next) result = await attempt(next);
    if (!next || result.status === 401) {
      clearSession();
      navigateTo('/login', { replace: true, state: { from: currentLocation() } });
      throw new ApiError(401, null, true);
    }
  }
  if (result.status < 200 || result.status >= 300) raise(result.status, result.body, reqOpts);
  return unwrap<T>(result.body);
}

/**
 * A multipart POST typed from the OpenAPI document: the path as declared with its parameters filled (encoded), the
 * answer the server declares for it. `uploadTo('/api/optimal/round/{id}', { id }, form)`.
 */
export function uploadTo<P extends PostPath>(path: P, params: PathParams<P>, form: FormData, opts: UploadOptions = {}): Promise<Answer<P, 'post'>> {
  return uploadMultipart<Answer<P, 'post'>>(fillPath(path, params), form, opts);
}
