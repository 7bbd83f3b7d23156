import { lazy, type ComponentType } from 'react';

/** SPEC §8: a chunk that has not loaded after 120 s is a failure the user is told about. */
export const CHUNK_TIMEOUT_MS = 120_000;

export type ChunkErrorCode = 'CHUNK_LOAD_TIMEOUT' | 'CHUNK_LOAD_FAILED' | 'CSS_CHUNK_LOAD_FAILED';

export class ChunkLoadError extends Error {
  readonly code: ChunkErrorCode;
  constructor(code: ChunkErrorCode, cause?: unknown) {
    super(`${code}${cause instanceof Error ? `: ${cause.message}` : ''}`);
    this.name = 'ChunkLoadError';
    this.code = code;
  }
}

let lastStylePreloadFailure = 0;

/** Vite dispatches `vite:preloadError` when a chunk's JS or CSS dependency fails to preload. */
export function installPreloadErrorHandler(): void {
  window.addEventListener('vite:preloadError', (event) => {
    const payload = (event as Event & { payload?: unknown }).payload;
    if (isStyleFailure(payload)) lastStylePreloadFailure = Date.now();
    // Not prevented: the dynamic import rejects and the route's error page explains it.
  });
}

const isStyleFailure = (e: unknown) =>
  e instanceof Error && (/preload CSS/i.test(e.message) || /\.css(\?|$|\s)/i.test(e.message));

export function classifyChunkError(e: unknown): ChunkLoadError {
  if (e instanceof ChunkLoadError) return e;
  if (isStyleFailure(e) || Date.now() - lastStylePreloadFailure < 2_000) return new ChunkLoadError('CSS_CHUNK_LOAD_FAILED', e);
  return new ChunkLoadError('CHUNK_LOAD_FAILED', e);
}

export function withTimeout<T>(promise: Promise<T>, ms: number = CHUNK_TIMEOUT_MS): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ChunkLoadError('CHUNK_LOAD_TIMEOUT')), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(classifyChunkError(e));
      },
    );
  });
}

/** React.lazy whose import fails with a ChunkLoadError after 120 s or on a download error. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- React.lazy itself takes ComponentType<any>
export function lazyWithTimeout<T extends ComponentType<any>>(load: () => Promise<{ default: T }>, ms: number = CHUNK_TIMEOUT_MS) {
  return lazy(() => withTimeout(load(), ms));
}
