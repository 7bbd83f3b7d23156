import i18n from '../i18n';
import type { Message } from '../lib/feedback';

/** A failed call. status 0 = no answer (network); `silenced` = deliberately not shown (aborted, signed out). */
export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;
  readonly silenced: boolean;

  constructor(status: number, body: unknown, silenced = false) {
    const d = describeError(status, body);
    super(d.error);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    this.silenced = silenced;
  }

  /** The server's own message (already in the user's language), if it sent one. */
  get serverMessage(): string | undefined {
    return responseText(this.body);
  }

  /** The stable error code of `{detail: {error}}`, if any. */
  get code(): string | undefined {
    const detail = isRecord(this.body) ? this.body.detail : undefined;
    return isRecord(detail) && typeof detail.error === 'string' ? detail.error : undefined;
  }

  /** 422 entries as {field, message}: field is the last element of loc. */
  get fieldErrors(): { field: string; message: string }[] {
    return validationEntries(this.body);
  }
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function responseText(body: unknown): string | undefined {
  const detail = isRecord(body) ? body.detail : undefined;
  if (isRecord(detail) && typeof detail.response === 'string' && detail.response) return detail.response;
  return undefined;
}

function validationEntries(body: unknown): { field: string; message: string }[] {
  const detail = isRecord(body) ? body.detail : undefined;
  if (!Array.isArray(detail)) return [];
  return detail.map((entry) => {
    const e = isRecord(entry) ? entry : {};
    const loc = Array.isArray(e.loc) ? e.loc : [];
    const last = loc.length ? loc[loc.length - 1] : '';
    return { field: last === null || last === undefined ? '' : String(last), message: String(e.msg ?? '') };
  });
}

export function serverBusyMessage(): Message {
  return { error: i18n.t('errors.serverBusyTitle'), details: i18n.t('errors.serverBusy') };
}

/**
 * SPEC §8 'Main client': what the message dialog shows for a failed call.
 * - 422: one 'field: message' line per detail entry
 * - 400: the detail's response (Error) and error (Details), else 'Bad request.'
 * - other 4xx with detail.response (401/403/404/409/413…): that message, already in the user's language
 * - anything else (5xx, no answer): 'Server Busy'
 */
export function describeError(status: number, body: unknown): Message {
  if (status === 422) {
    const entries = validationEntries(body);
    if (entries.length) {
      return {
        error: i18n.t('errors.invalidInput'),
        details: entries.map(({ field, message }) => (field ? `${field}: ${message}` : message)),
      };
    }
  }
  const response = responseText(body);
  if (status === 400) {
    if (!response) return { error: i18n.t('errors.badRequest') };
    const detail = isRecord(body) ? body.detail : undefined;
    const code = isRecord(detail) && typeof detail.error === 'string' ? detail.error : undefined;
    return code ? { error: response, details: code } : { error: response };
  }
  if (status >= 400 && status < 500 && response) return { error: response };
  return serverBusyMessage();
}
