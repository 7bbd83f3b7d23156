/**
 * Reads the header of a CSV in the browser before upload, as the server will (server csv-sniff):
 * UTF-8 (with or without BOM), else Shift_JIS; delimiter , ; tab or |; quoted fields with "" escapes.
 */
import { detectDelimiter, leadingRecords, splitRecord } from '@mitate/rules';

export { detectDelimiter, splitRecord };

export const SNIFF_BYTES = 64 * 1024;

export type SniffEncoding = 'utf-8' | 'utf-8-sig' | 'shift_jis';

export interface HeaderSniff {
  columns: string[];
  delimiter: string;
  encoding: SniffEncoding;
}

/** Decodes a sample; a multi-byte character cut off at the end of the sample is not an error. */
export function decodeSample(bytes: Uint8Array): { text: string; encoding: SniffEncoding } {
  let body = bytes;
  let encoding: SniffEncoding = 'utf-8';
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    encoding = 'utf-8-sig';
    body = bytes.subarray(3);
  }
  try {
    // stream: true keeps an incomplete trailing sequence pending instead of failing on it.
    const text = new TextDecoder('utf-8', { fatal: true }).decode(body, { stream: true });
    return { text, encoding };
  } catch {
    return { text: new TextDecoder('shift_jis').decode(body), encoding: 'shift_jis' };
  }
}

/** The first logical records (a newline inside quotes does not end a record). */
export function firstRecords(text: string, max = 20): string[] {
  return leadingRecords(text, max).records.filter((r) => r.trim().length > 0);
}

export function sniffText(text: string): Omit<HeaderSniff, 'encoding'> {
  const records = firstRecords(text);
  if (!records.length) return { columns: [], delimiter: ',' };
  const delimiter = detectDelimiter(records);
  return { columns: splitRecord(records[0], delimiter).map((h) => h.trim()), delimiter };
}

function readBytes(blob: Blob): Promise<ArrayBuffer> {
  if (typeof blob.arrayBuffer === 'function') return blob.arrayBuffer();
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as ArrayBuffer);
    reader.onerror = () => reject(reader.error);
    reader.readAsArrayBuffer(blob);
  });
}

/** What a binary file looks like by its first bytes (a JPEG renamed .csv, a workbook...), for the message. */
export type BinaryKind = 'jpeg' | 'png' | 'pdf' | 'zip' | 'other';

/** A file that is not text: the server refuses it (csv_binary, a NUL byte in the first 64 KiB); said at preview. */
export class NotTextError extends Error {
  constructor(readonly kind: BinaryKind) {
    super(`not a text table (${kind})`);
  }
}

export function binaryKind(bytes: Uint8Array): BinaryKind | null {
  const starts = (...b: number[]) => b.every((v, i) => bytes[i] === v);
  if (starts(0xff, 0xd8, 0xff)) return 'jpeg';
  if (starts(0x89, 0x50, 0x4e, 0x47)) return 'png';
  if (starts(0x25, 0x50, 0x44, 0x46)) return 'pdf';
  if (starts(0x50, 0x4b, 0x03, 0x04)) return 'zip';
  // the server's rule: a NUL byte in the first 64 KiB
  return bytes.subarray(0, 65536).includes(0) ? 'other' : null;
}

export async function sniffHeader(file: Blob): Promise<HeaderSniff> {
  const bytes = new Uint8Array(await readBytes(file.slice(0, SNIFF_BYTES)));
  const kind = binaryKind(bytes);
  if (kind) throw new NotTextError(kind);
  const { text, encoding } = decodeSample(bytes);
  return { ...sniffText(text), encoding };
}

/** Tables as CSV; a ZIP holds images (OK/NG analysis, classification, or images to predict). */
export const ACCEPTED_EXTENSIONS = ['.csv', '.tsv', '.txt', '.zip'];
export const isZip = (name: string) => name.toLowerCase().endsWith('.zip');
export const hasAcceptedExtension = (name: string) => ACCEPTED_EXTENSIONS.some((e) => name.toLowerCase().endsWith(e));

/** A likely datetime column to preselect: by name (date, time, timestamp, 日時, 日付, 時刻). */
export function guessDatetimeColumn(columns: string[]): string {
  const re = /(date|time|timestamp|datetime|日時|日付|時刻|時間)/i;
  return columns.find((c) => re.test(c)) ?? '';
}
